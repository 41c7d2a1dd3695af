// three-load.mjs FILE...: loads each .gltf/.glb file with three.js's GLTFLoader, as a web page
// would, and prints one JSON array on stdout, per file what three made of it (shape in
// README.md), read from three's own objects. Exits 0 whenever it could run, however badly a file
// loads (that goes in its `errors`); non-zero, with the reason on stderr, only when it cannot.
//
// Node has no DOM and no image decoder, so a few globals GLTFLoader expects are stood in for
// below (`installNodeStandIns`); the rest (fetch, Blob, URL.createObjectURL, Request,
// AbortSignal) node 20 has.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { resourceInFolder } from './local-files.mjs';

/** Where console output goes while a file loads: that file's `errors` and `warnings`. */
let sink = null;

/**
 * The globals GLTFLoader needs that node lacks, each as small as it can be:
 *
 * - `self`: GLTFLoader reads `self.URL` to make object URLs for images stored in buffer views.
 * - `ProgressEvent`: three's FileLoader streams every fetched body (buffers, data URIs) and makes
 *   one per chunk; without it the stream throws and the load never ends.
 * - `createImageBitmap`: with it GLTFLoader picks ImageBitmapLoader (fetch + createImageBitmap)
 *   instead of TextureLoader, which needs `document.createElementNS('img')`. Nothing is drawn
 *   here, so it decodes no pixels: it reads the width and height from a PNG or JPEG header and
 *   rejects anything else (GLTFLoader then logs "Couldn't load texture", which lands in
 *   `errors`, and leaves that map out).
 * - `fetch`: node's fetch has no `file:` URLs, so those are read from disk, only inside the
 *   glTF file's folder (`local-files.mjs`, the rule the validator script follows too); `data:`
 *   and `blob:` URLs go to node's fetch; anything else (the network) is refused.
 */
function installNodeStandIns() {
	globalThis.self ??= globalThis;
	globalThis.ProgressEvent ??= class ProgressEvent extends Event {
		constructor(type, init = {}) {
			super(type);
			this.lengthComputable = init.lengthComputable ?? false;
			this.loaded = init.loaded ?? 0;
			this.total = init.total ?? 0;
		}
	};
	globalThis.createImageBitmap = async (blob) => {
		const size = imageSize(new Uint8Array(await blob.arrayBuffer()));
		if (size === null) {
			throw refusal(`an image is not a PNG or JPEG (${blob.type || 'no type'}, ${blob.size} bytes)`);
		}
		return { ...size, close() {} };
	};
	const nodeFetch = globalThis.fetch;
	globalThis.fetch = async (input, init) => {
		const url = typeof input === 'string' ? input : input.url;
		if (url.startsWith('data:') || url.startsWith('blob:')) {
			return nodeFetch(url, init);
		}
		const folder = currentFolder;
		if (folder === null || !url.startsWith(folder.href)) {
			throw refusal(`refused ${url}: not a file in the glTF file's folder`);
		}
		try {
			const file = await resourceInFolder(fileURLToPath(folder), url.slice(folder.href.length));
			return new Response(await readFile(file), { status: 200 });
		} catch (e) {
			throw refusal(e.message);
		}
	};
}

/**
 * An error for a stand-in to throw, also noted in the current file's `errors`: GLTFLoader's own
 * message for a failed resource does not say why it failed.
 */
function refusal(why) {
	sink?.errors.push(why);
	return new Error(why);
}

/** The folder of the file being loaded, as a `file:` URL ending in `/`. */
let currentFolder = null;

/** `{width, height}` from a PNG's IHDR or a JPEG's start-of-frame, or null. */
function imageSize(b) {
	const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
	if (b.length >= 24 && png.every((v, i) => b[i] === v)) {
		const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
		return { width: v.getUint32(16), height: v.getUint32(20) };
	}
	if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
		let i = 2;
		while (i + 9 < b.length) {
			if (b[i] !== 0xff) return null;
			const marker = b[i + 1];
			if (marker === 0xff) {
				i += 1;
				continue;
			}
			const length = (b[i + 2] << 8) | b[i + 3];
			const startOfFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
			if (startOfFrame) {
				return { height: (b[i + 5] << 8) | b[i + 6], width: (b[i + 7] << 8) | b[i + 8] };
			}
			i += 2 + length;
		}
	}
	return null;
}

/** Sends console output to the current file's report (stdout carries only the JSON). */
function captureConsole() {
	const text = (args) =>
		args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : String(a))).join(' ');
	const to = (kind) => (...args) => {
		if (sink !== null) sink[kind].push(text(args));
		else process.stderr.write(text(args) + '\n');
	};
	console.error = to('errors');
	console.warn = to('warnings');
	console.log = to('warnings');
	console.info = to('warnings');
	console.debug = () => {};
}

/** How long one file may take to load before it counts as never loading. */
const LOAD_TIMEOUT_MS = 120_000;

function parse(loader, bytes, folder) {
	const data = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
	let timer;
	const timeout = new Promise((_, reject) => {
		timer = setTimeout(() => reject(new Error(`did not load in ${LOAD_TIMEOUT_MS / 1000} s`)), LOAD_TIMEOUT_MS);
	});
	const loaded = new Promise((resolve, reject) => loader.parse(data, folder.href, resolve, reject));
	return Promise.race([loaded, timeout]).finally(() => clearTimeout(timer));
}

const SIDES = { [THREE.FrontSide]: 'front', [THREE.BackSide]: 'back', [THREE.DoubleSide]: 'double' };

function materialsOf(object) {
	return Array.isArray(object.material) ? object.material : [object.material];
}

function materialReport(m) {
	return {
		name: m.name,
		type: m.type,
		map: Boolean(m.map),
		normalMap: Boolean(m.normalMap),
		roughnessMap: Boolean(m.roughnessMap),
		metalnessMap: Boolean(m.metalnessMap),
		aoMap: Boolean(m.aoMap),
		emissiveMap: Boolean(m.emissiveMap),
		transparent: m.transparent,
		alphaTest: m.alphaTest,
		side: SIDES[m.side] ?? String(m.side),
		color: m.color ? m.color.toArray() : null,
		opacity: m.opacity,
		roughness: m.roughness ?? null,
		metalness: m.metalness ?? null,
		vertexColors: m.vertexColors,
	};
}

function morphTargetNames(mesh) {
	const names = [];
	for (const [name, index] of Object.entries(mesh.morphTargetDictionary ?? {})) names[index] = name;
	const count = mesh.geometry.morphAttributes.position?.length ?? 0;
	for (let i = 0; i < count; i++) names[i] ??= null;
	return names;
}

function meshReport(mesh) {
	const g = mesh.geometry;
	const vertexCount = g.attributes.position?.count ?? 0;
	return {
		name: mesh.name,
		vertexCount,
		triangleCount: Math.floor((g.index ? g.index.count : vertexCount) / 3),
		attributes: Object.keys(g.attributes),
		morphTargets: morphTargetNames(mesh),
		materials: materialsOf(mesh).map((m) => m.name),
	};
}

/** The glTF node index of `object` or its nearest ancestor that is a node. */
function nodeIndexOf(parser, object) {
	for (let o = object; o; o = o.parent) {
		const index = parser.associations.get(o)?.nodes;
		if (index !== undefined) return index;
	}
	return undefined;
}

function skinnedMeshReport(mesh, parser, root, errors) {
	const skeleton = mesh.skeleton;
	const bones = skeleton?.bones ?? [];
	const nodeIndex = nodeIndexOf(parser, mesh);
	const skinIndex = nodeIndex === undefined ? undefined : parser.json.nodes[nodeIndex].skin;
	const joints = skinIndex === undefined ? null : parser.json.skins[skinIndex].joints.length;
	const inScene = (bone) => {
		let o = bone;
		while (o.parent) o = o.parent;
		return o === root;
	};
	const missing = bones.filter((b) => !b).length + (joints === null ? 0 : Math.max(0, joints - bones.length));
	const detached = bones.filter((b) => b && !inScene(b)).length;
	if (missing > 0) errors.push(`${mesh.name}: ${missing} of its skin's joints did not resolve to bones`);
	if (detached > 0) errors.push(`${mesh.name}: ${detached} bones are not in the scene`);
	const skinIndexAttribute = mesh.geometry.attributes.skinIndex;
	const skinWeightAttribute = mesh.geometry.attributes.skinWeight;
	return {
		...meshReport(mesh),
		bones: bones.map((b) => b?.name ?? null),
		joints,
		boneInverses: skeleton?.boneInverses.length ?? 0,
		unresolvedBones: missing + detached,
		influencesPerVertex: skinIndexAttribute?.itemSize ?? 0,
		weightsPerVertex: skinWeightAttribute?.itemSize ?? 0,
		secondInfluenceSet: 'joints_1' in mesh.geometry.attributes || 'weights_1' in mesh.geometry.attributes,
	};
}

function report(file, gltf, errors) {
	const parser = gltf.parser;
	const nodes = new Set();
	const objects = new Set();
	const bones = new Set();
	const meshes = [];
	const skinnedMeshes = [];
	const materials = new Map();
	for (const scene of gltf.scenes) {
		scene.updateMatrixWorld(true);
		scene.traverse((o) => {
			if (o !== scene) objects.add(o);
			const node = parser.associations.get(o)?.nodes;
			if (node !== undefined) nodes.add(node);
			if (o.isBone) bones.add(o);
			if (o.isSkinnedMesh) skinnedMeshes.push(skinnedMeshReport(o, parser, scene, errors));
			else if (o.isMesh) meshes.push(meshReport(o));
			if (o.isMesh) for (const m of materialsOf(o)) materials.set(m.uuid, m);
		});
	}
	const textures = new Set();
	const images = new Map();
	for (const m of materials.values()) {
		for (const value of Object.values(m)) {
			if (value?.isTexture) {
				textures.add(value);
				images.set(value.source.uuid, value.image);
			}
		}
	}
	return {
		file,
		scenes: gltf.scenes.length,
		nodes: nodes.size,
		objects: objects.size,
		skinnedMeshes,
		meshes,
		bones: bones.size,
		materials: [...materials.values()].map(materialReport),
		textures: textures.size,
		images: [...images.values()].map((i) => ({ width: i?.width ?? null, height: i?.height ?? null })),
		animations: gltf.animations.map((a) => ({
			name: a.name,
			duration: a.duration,
			tracks: a.tracks.length,
			trackNames: a.tracks.map((t) => t.name),
		})),
		errors,
	};
}

async function load(file) {
	const bytes = await readFile(file);
	const folder = pathToFileURL(path.dirname(path.resolve(file)) + path.sep);
	const log = { errors: [], warnings: [] };
	sink = log;
	currentFolder = folder;
	try {
		const gltf = await parse(new GLTFLoader(), bytes, folder);
		return { ...report(file, gltf, log.errors), warnings: log.warnings };
	} catch (e) {
		log.errors.push(`not loaded: ${e?.message ?? e}`);
		return { ...emptyReport(file, log.errors), warnings: log.warnings };
	} finally {
		sink = null;
		currentFolder = null;
	}
}

function emptyReport(file, errors) {
	return {
		file,
		scenes: 0,
		nodes: 0,
		objects: 0,
		skinnedMeshes: [],
		meshes: [],
		bones: 0,
		materials: [],
		textures: 0,
		images: [],
		animations: [],
		errors,
	};
}

async function main(files) {
	if (files.length === 0) {
		throw new Error('usage: node three-load.mjs FILE...');
	}
	installNodeStandIns();
	captureConsole();
	const reports = [];
	for (const file of files) {
		reports.push(await load(file));
	}
	process.stdout.write(JSON.stringify(reports, null, 1) + '\n');
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write(`three-load.mjs: ${e?.stack ?? e}\n`);
	process.exit(2);
});

// three-load.mjs FILE...: loads each .gltf/.glb file with three.js's GLTFLoader, as a web page
// would, and prints one JSON array on stdout, per file what three made of it (shape in
// README.md), read from three's own objects. Exits 0 whenever it could run, however badly a file
// loads (that goes in its `errors`); non-zero, with the reason on stderr, only when it cannot.
//
// Node has no DOM and no image decoder: the globals GLTFLoader expects are stood in for by
// node-gltf.mjs (`installNodeStandIns`), which also reads resources only from a file's folder.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { captureConsole, installNodeStandIns, parse, withFile } from './node-gltf.mjs';

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
	return withFile(file, async ({ bytes, folder, log }) => {
		try {
			const gltf = await parse(new GLTFLoader(), bytes, folder);
			return { ...report(file, gltf, log.errors), warnings: log.warnings };
		} catch (e) {
			log.errors.push(`not loaded: ${e?.message ?? e}`);
			return { ...emptyReport(file, log.errors), warnings: log.warnings };
		}
	});
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

// render-page.mjs: the browser half of render.mjs, run by render.html in headless chromium. It
// reads the job render.mjs serves at job.json, loads each file with three.js's GLTFLoader as a
// web page would (a `.vrm` through @pixiv/three-vrm's VRMLoaderPlugin, as a VRM viewer would),
// frames the whole model (the box of its meshes at rest, skinned meshes by their bones), lights it
// with a hemisphere light and three directional lights placed around each camera, draws every view
// of every file side by side in one WebGL canvas (one tile per file and view, in that order), and
// posts the canvas as a PNG with a report per file to done.
//
// Only the files and modules render.mjs serves are read; nothing here leaves the page's origin.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

/**
 * Where each view's camera sits, seen from the model's centre: glTF's front is +Z and its up +Y,
 * so `front` looks at the face, `side` at the model's left side (its face looks left in the
 * picture) and `three-quarter` halfway between them, as `mpfb2g4mf preview` draws them.
 */
const VIEWS = {
	front: [0, 0, 1],
	'three-quarter': [Math.SQRT1_2, 0, Math.SQRT1_2],
	side: [1, 0, 0],
	back: [0, 0, -1],
};

/** The cameras' vertical field of view, degrees: a long lens, little perspective. */
const FIELD_OF_VIEW = 20;

/** The share of a tile the model may fill, in its tighter direction. */
const FILL = 0.92;

/**
 * The lights, each a direction in camera space (x right, y up, z towards the camera) and an
 * intensity: a key light high on the camera's left, a weaker fill from its right and a rim light
 * from behind; a hemisphere light (white sky, grey ground) stands in for an environment.
 */
const KEY = { from: [-0.7, 0.8, 1.0], intensity: 2.2 };
const FILL_LIGHT = { from: [0.9, 0.1, 0.8], intensity: 0.6 };
const RIM = { from: [0.4, 0.7, -1.0], intensity: 1.6 };
const HEMISPHERE = { sky: 0xffffff, ground: 0x6b6b70, intensity: 1.1 };

/** Where console output goes while a file loads and draws: that file's errors and warnings. */
let sink = null;

function captureConsole() {
	const text = (args) =>
		args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : String(a))).join(' ');
	const original = { error: console.error, warn: console.warn };
	console.error = (...args) => (sink ? sink.errors.push(text(args)) : original.error(...args));
	console.warn = (...args) => (sink ? sink.warnings.push(text(args)) : original.warn(...args));
}

async function post(path, body) {
	await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** Tells render.mjs the page cannot draw at all (no WebGL, a script error). */
function fail(why) {
	post('done', { fatal: String(why?.stack ?? why) }).catch(() => {});
}

/** Whether `file` is drawn as a VRM: by its name, `.vrm`. */
function isVrm(file) {
	return /\.vrm$/i.test(file.name);
}

/**
 * The loader for one file: GLTFLoader, with @pixiv/three-vrm's VRMLoaderPlugin (at its defaults,
 * as a VRM viewer sets it up) for a `.vrm`. three-vrm is imported only then, so a job of glTF
 * files loads and draws exactly as it did without it.
 */
async function makeLoader(file) {
	const loader = new GLTFLoader();
	if (isVrm(file)) {
		const { VRMLoaderPlugin } = await import('@pixiv/three-vrm');
		loader.register((parser) => new VRMLoaderPlugin(parser));
	}
	return loader;
}

/**
 * The scene to draw of a loaded `.vrm`: three-vrm's `vrm.scene`, after `vrm.update(0)`
 * (expressions, look-at and the normalized rig applied at rest; MToon set up). A VRM 0.x model faces -Z, so it
 * is turned to face +Z as viewers do (`VRMUtils.rotateVRM0`). Notes the VRM in `out.vrm`, or an
 * error when three-vrm made none.
 */
async function vrmScene(gltf, out) {
	const vrm = gltf.userData.vrm;
	if (!vrm) {
		out.errors.push('three-vrm made no VRM (no VRMC_vrm, or one without meta or humanoid)');
		return gltf.scene;
	}
	const version = vrm.meta?.metaVersion ?? null;
	out.vrm = { metaVersion: version, name: (version === '0' ? vrm.meta.title : vrm.meta?.name) ?? null };
	if (version === '0') {
		const { VRMUtils } = await import('@pixiv/three-vrm');
		VRMUtils.rotateVRM0(vrm);
	}
	vrm.update(0);
	return vrm.scene;
}

/** Every mesh of `root` (three makes one object per glTF primitive). */
function meshesOf(root) {
	const meshes = [];
	root.traverse((o) => {
		if (o.isMesh) meshes.push(o);
	});
	return meshes;
}

/**
 * The camera distance that fits `box` in every view at once, so a model keeps its size from
 * view to view: for each corner, the distance at which it meets the frustum's side.
 */
function fittingDistance(box, views, aspect) {
	const centre = box.getCenter(new THREE.Vector3());
	const tanV = Math.tan(THREE.MathUtils.degToRad(FIELD_OF_VIEW / 2)) * FILL;
	const tanH = tanV * aspect;
	let distance = 0;
	for (const view of views) {
		const { right, up, back } = basis(view);
		for (let i = 0; i < 8; i++) {
			const corner = new THREE.Vector3(
				i & 1 ? box.max.x : box.min.x,
				i & 2 ? box.max.y : box.min.y,
				i & 4 ? box.max.z : box.min.z,
			).sub(centre);
			const z = corner.dot(back);
			distance = Math.max(distance, z + Math.abs(corner.dot(right)) / tanH, z + Math.abs(corner.dot(up)) / tanV);
		}
	}
	return distance;
}

/** A view's camera axes in world space: right, up, and back (from the model to the camera). */
function basis(view) {
	const back = new THREE.Vector3(...VIEWS[view]).normalize();
	const up = new THREE.Vector3(0, 1, 0);
	const right = new THREE.Vector3().crossVectors(up, back).normalize();
	return { right, up: new THREE.Vector3().crossVectors(back, right), back };
}

/** A light's world direction (towards the light) for a view, from its camera-space direction. */
function fromCamera(view, [x, y, z]) {
	const { right, up, back } = basis(view);
	return right.multiplyScalar(x).addScaledVector(up, y).addScaledVector(back, z).normalize();
}

function report(name) {
	return { file: name, loaded: false, vrm: null, meshes: 0, skinnedMeshes: 0, triangles: 0, materials: 0, box: null, milliseconds: 0, errors: [], warnings: [] };
}

function dispose(root) {
	root.traverse((o) => {
		if (!o.isMesh) return;
		o.geometry.dispose();
		for (const m of Array.isArray(o.material) ? o.material : [o.material]) {
			for (const value of Object.values(m)) if (value?.isTexture) value.dispose();
			m.dispose();
		}
	});
}

/** Loads one file and draws its views into the tiles starting at `column`. */
async function drawFile(renderer, job, file, column) {
	const started = performance.now();
	const out = report(file.name);
	sink = out;
	try {
		const gltf = await (await makeLoader(file)).loadAsync(file.url);
		const root = isVrm(file) ? await vrmScene(gltf, out) : (gltf.scene ?? gltf.scenes[0]);
		if (!root) throw new Error('the file has no scene');
		out.loaded = true;
		const scene = new THREE.Scene();
		scene.add(root);
		scene.updateMatrixWorld(true);
		const meshes = meshesOf(root);
		const materials = new Set();
		for (const mesh of meshes) {
			if (mesh.isSkinnedMesh) out.skinnedMeshes += 1;
			const g = mesh.geometry;
			out.triangles += Math.floor((g.index ? g.index.count : g.attributes.position.count) / 3);
			for (const m of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) materials.add(m);
		}
		out.meshes = meshes.length;
		out.materials = materials.size;
		// The exact box of every vertex where it is drawn: skinned meshes by their bones at rest.
		const box = new THREE.Box3().setFromObject(root, true);
		if (box.isEmpty()) throw new Error('the scene has no vertices to frame');
		out.box = { min: box.min.toArray(), max: box.max.toArray() };

		const aspect = job.width / job.height;
		const distance = fittingDistance(box, job.views, aspect);
		const radius = box.getSize(new THREE.Vector3()).length() / 2;
		const camera = new THREE.PerspectiveCamera(FIELD_OF_VIEW, aspect, Math.max(distance - 2 * radius, distance / 100), distance + 2 * radius);
		const centre = box.getCenter(new THREE.Vector3());
		const hemisphere = new THREE.HemisphereLight(HEMISPHERE.sky, HEMISPHERE.ground, HEMISPHERE.intensity);
		const lights = [KEY, FILL_LIGHT, RIM].map((l) => {
			const light = new THREE.DirectionalLight(0xffffff, l.intensity);
			light.target.position.copy(centre);
			scene.add(light, light.target);
			return [light, l.from];
		});
		scene.add(hemisphere);
		scene.updateMatrixWorld(true);

		for (const [i, view] of job.views.entries()) {
			const x = (column + i) * job.width;
			const { back } = basis(view);
			camera.position.copy(centre).addScaledVector(back, distance);
			camera.up.set(0, 1, 0);
			camera.lookAt(centre);
			for (const [light, from] of lights) {
				light.position.copy(centre).addScaledVector(fromCamera(view, from), distance);
			}
			scene.updateMatrixWorld(true);
			renderer.setViewport(x, 0, job.width, job.height);
			renderer.setScissor(x, 0, job.width, job.height);
			renderer.render(scene, camera);
		}
		dispose(root);
	} catch (e) {
		out.errors.push(`not drawn: ${e?.message ?? e}`);
	} finally {
		sink = null;
		out.milliseconds = Math.round(performance.now() - started);
	}
	return out;
}

async function main() {
	captureConsole();
	const job = await (await fetch('job.json')).json();
	const columns = job.files.length * job.views.length;
	const canvas = document.createElement('canvas');
	document.body.append(canvas);
	let renderer;
	try {
		renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
	} catch (e) {
		throw new Error(`no WebGL: ${e?.message ?? e}`);
	}
	renderer.setPixelRatio(1);
	renderer.setSize(columns * job.width, job.height, false);
	renderer.outputColorSpace = THREE.SRGBColorSpace;
	renderer.toneMapping = THREE.NeutralToneMapping;
	renderer.setClearColor(new THREE.Color(job.background), 1);
	renderer.setScissorTest(false);
	renderer.clear();
	renderer.setScissorTest(true);

	const gl = renderer.getContext();
	const debug = gl.getExtension('WEBGL_debug_renderer_info');
	const files = [];
	for (const [i, file] of job.files.entries()) {
		files.push(await drawFile(renderer, job, file, i * job.views.length));
	}
	const png = canvas.toDataURL('image/png');
	await post('done', {
		png,
		width: canvas.width,
		height: canvas.height,
		userAgent: navigator.userAgent,
		webgl: debug ? gl.getParameter(debug.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
		files,
	});
}

window.addEventListener('error', (e) => fail(e.error ?? e.message));
window.addEventListener('unhandledrejection', (e) => fail(e.reason));
main().catch(fail);

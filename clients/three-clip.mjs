// three-clip.mjs FILE CLIP TIME[,TIME...]: loads a .gltf/.glb file with three.js's GLTFLoader,
// plays its animation clip CLIP with three's AnimationMixer and prints, as one JSON document on
// stdout, every glTF node's world quaternion at rest and at each TIME (seconds), read from
// three's own objects after `mixer.setTime` (the clip played once and held at its end, so a
// time past it draws the last key). Quaternions are three's `[x, y, z, w]`; positions
// `[x, y, z]` in metres. Shape:
//
//   {file, clip, duration, tracks, errors, warnings,
//    rest: [{node, name, quaternion, position}],
//    frames: [{time, nodes: [{node, name, quaternion, position}]}]}
//
// `node` is the glTF node index (GLTFLoader's associations), `name` the node's name in the
// file. Exits 0 whenever it could run, however badly the file loads (that goes in `errors`,
// and a clip that is not there too); non-zero, with the reason on stderr, only when it cannot
// (arguments missing, a time that is not a number, the file unreadable, a package missing).

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { captureConsole, installNodeStandIns, parse, withFile } from './node-gltf.mjs';

/** Every object of `scene` that is a glTF node, by node index, world matrices up to date. */
function nodesOf(parser, scene) {
	scene.updateMatrixWorld(true);
	const nodes = [];
	scene.traverse((o) => {
		const node = parser.associations.get(o)?.nodes;
		// A mesh of several primitives is a group (the node) holding one object per primitive,
		// each associated with the node too: keep the outermost.
		if (node !== undefined && !nodes.some((n) => n.node === node)) nodes.push({ node, object: o });
	});
	return nodes.sort((a, b) => a.node - b.node);
}

function worldOf(parser, { node, object }) {
	const quaternion = new THREE.Quaternion();
	const position = new THREE.Vector3();
	object.getWorldQuaternion(quaternion);
	object.getWorldPosition(position);
	return {
		node,
		name: parser.json.nodes[node]?.name ?? null,
		quaternion: quaternion.toArray(),
		position: position.toArray(),
	};
}

async function sample(file, clipName, times) {
	return withFile(file, async ({ bytes, folder, log }) => {
		const report = { file, clip: clipName, duration: null, tracks: 0, rest: [], frames: [] };
		let gltf;
		try {
			gltf = await parse(new GLTFLoader(), bytes, folder);
		} catch (e) {
			log.errors.push(`not loaded: ${e?.message ?? e}`);
			return { ...report, errors: log.errors, warnings: log.warnings };
		}
		const parser = gltf.parser;
		const scene = gltf.scene;
		const nodes = nodesOf(parser, scene);
		report.rest = nodes.map((n) => worldOf(parser, n));
		const clip = gltf.animations.find((a) => a.name === clipName);
		if (!clip) {
			const names = gltf.animations.map((a) => a.name).join(', ') || 'none';
			log.errors.push(`no clip ${JSON.stringify(clipName)} (the file has: ${names})`);
			return { ...report, errors: log.errors, warnings: log.warnings };
		}
		report.duration = clip.duration;
		report.tracks = clip.tracks.length;
		const mixer = new THREE.AnimationMixer(scene);
		// Played once and held at its end: a time at the clip's duration is its last key, not
		// (as LoopRepeat would have it) its first again.
		const action = mixer.clipAction(clip);
		action.setLoop(THREE.LoopOnce, 1);
		action.clampWhenFinished = true;
		action.play();
		for (const time of times) {
			mixer.setTime(time);
			scene.updateMatrixWorld(true);
			report.frames.push({ time, nodes: nodes.map((n) => worldOf(parser, n)) });
		}
		return { ...report, errors: log.errors, warnings: log.warnings };
	});
}

async function main([file, clip, timeList, ...rest]) {
	if (file === undefined || clip === undefined || timeList === undefined || rest.length > 0) {
		throw new Error('usage: node three-clip.mjs FILE CLIP TIME[,TIME...]');
	}
	const times = timeList.split(',').map((t) => {
		const value = Number(t);
		if (t.trim() === '' || !Number.isFinite(value) || value < 0) throw new Error(`${t} is not a time in seconds`);
		return value;
	});
	installNodeStandIns();
	captureConsole();
	process.stdout.write(JSON.stringify(await sample(file, clip, times)) + '\n');
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write(`three-clip.mjs: ${e?.stack ?? e}\n`);
	process.exit(2);
});

// vrma-play.mjs FILE.vrm FILE.vrma TIME[,TIME...]: plays a VRM animation on a VRM as a
// three-vrm viewer does and prints, as one JSON document on stdout, each human bone's world
// quaternion and position on the raw (not normalized) rig at rest and at each TIME (seconds).
// The .vrm is loaded with three.js's GLTFLoader and @pixiv/three-vrm's VRMLoaderPlugin, the .vrma
// with @pixiv/three-vrm-animation's VRMAnimationLoaderPlugin; `createVRMAnimationClip` makes
// the clip for the VRM, an AnimationMixer plays it (once, held at its end), and after
// `mixer.setTime(TIME)` and `vrm.update(0)` (which copies the normalized rig onto the raw bones)
// the bones are read from three's objects. Shape:
//
//   {vrm, vrma, duration, tracks, errors, warnings,
//    rest: [{bone, node, nodeIndex, quaternion, position}],
//    frames: [{time, bones: [{bone, node, nodeIndex, quaternion, position}]}]}
//
// `bone` is the VRM human bone name, `node` and `nodeIndex` the .vrm's glTF node; quaternions
// are three's `[x, y, z, w]`, positions `[x, y, z]` in metres. Exits 0 whenever it could run,
// however badly a file loads (that goes in `errors`); non-zero, with the reason on stderr, only
// when it cannot (arguments missing, a time that is not a number, a file unreadable, a package
// missing). Each file's resources are read only from its own folder (node-gltf.mjs).

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { VRMHumanBoneList, VRMLoaderPlugin } from '@pixiv/three-vrm';
import { VRMAnimationLoaderPlugin, VRMLookAtQuaternionProxy, createVRMAnimationClip } from '@pixiv/three-vrm-animation';
import { captureConsole, installNodeStandIns, parse, withFile } from './node-gltf.mjs';

const USAGE = 'usage: node vrma-play.mjs FILE.vrm FILE.vrma TIME[,TIME...]';

/** Every human bone three-vrm found on the raw rig, in its list's order, with its glTF node. */
function humanBones(vrm, parser) {
	return VRMHumanBoneList.filter((name) => vrm.humanoid.getRawBoneNode(name)).map((name) => {
		const object = vrm.humanoid.getRawBoneNode(name);
		const nodeIndex = parser.associations.get(object)?.nodes ?? null;
		return { bone: name, object, node: nodeIndex === null ? null : (parser.json.nodes[nodeIndex]?.name ?? null), nodeIndex };
	});
}

/** The bones' world rotations and positions now. */
function worldOf(vrm, bones) {
	vrm.scene.updateMatrixWorld(true);
	return bones.map(({ bone, object, node, nodeIndex }) => ({
		bone,
		node,
		nodeIndex,
		quaternion: object.getWorldQuaternion(new THREE.Quaternion()).toArray(),
		position: object.getWorldPosition(new THREE.Vector3()).toArray(),
	}));
}

/** The VRM of `file`, or null with the reason in `log.errors`. */
async function loadVrm(file) {
	return withFile(file, async ({ bytes, folder, log }) => {
		const loader = new GLTFLoader();
		loader.register((parser) => new VRMLoaderPlugin(parser));
		try {
			const gltf = await parse(loader, bytes, folder);
			const vrm = gltf.userData.vrm ?? null;
			if (!vrm) log.errors.push(`${file}: loaded, but three-vrm made no VRM of it`);
			return { gltf, vrm, log };
		} catch (e) {
			log.errors.push(`${file}: not loaded: ${e?.message ?? e}`);
			return { gltf: null, vrm: null, log };
		}
	});
}

async function play(vrmFile, vrmaFile, times) {
	const report = { vrm: vrmFile, vrma: vrmaFile, duration: null, tracks: 0, rest: [], frames: [] };
	const loaded = await loadVrm(vrmFile);
	const errors = [...loaded.log.errors];
	const warnings = [...loaded.log.warnings];
	const done = () => ({ ...report, errors, warnings });
	if (!loaded.vrm) return done();
	const { vrm, gltf } = loaded;
	return withFile(vrmaFile, async ({ bytes, folder, log }) => {
		const finish = () => {
			errors.push(...log.errors);
			warnings.push(...log.warnings);
			return done();
		};
		const loader = new GLTFLoader();
		loader.register((parser) => new VRMAnimationLoaderPlugin(parser));
		let animation;
		try {
			const vrma = await parse(loader, bytes, folder);
			animation = vrma.userData.vrmAnimations?.[0];
			if (!animation) log.errors.push(`${vrmaFile}: loaded, but three-vrm-animation found no VRM animation in it`);
		} catch (e) {
			log.errors.push(`${vrmaFile}: not loaded: ${e?.message ?? e}`);
		}
		if (!animation) return finish();
		// The look-at's proxy, made as three-vrm-animation's examples make it (else the clip's
		// maker makes one and says so).
		if (vrm.lookAt) {
			const proxy = new VRMLookAtQuaternionProxy(vrm.lookAt);
			proxy.name = 'VRMLookAtQuaternionProxy';
			vrm.scene.add(proxy);
		}
		const bones = humanBones(vrm, gltf.parser);
		vrm.update(0);
		report.rest = worldOf(vrm, bones);
		const clip = createVRMAnimationClip(animation, vrm);
		report.duration = clip.duration;
		report.tracks = clip.tracks.length;
		const mixer = new THREE.AnimationMixer(vrm.scene);
		const action = mixer.clipAction(clip);
		// Played once and held at its end: a time at the clip's duration is its last key.
		action.setLoop(THREE.LoopOnce, 1);
		action.clampWhenFinished = true;
		action.play();
		for (const time of times) {
			mixer.setTime(time);
			vrm.update(0);
			report.frames.push({ time, bones: worldOf(vrm, bones) });
		}
		return finish();
	});
}

async function main([vrmFile, vrmaFile, timeList, ...rest]) {
	if (vrmFile === undefined || vrmaFile === undefined || timeList === undefined || rest.length > 0) {
		throw new Error(USAGE);
	}
	const times = timeList.split(',').map((t) => {
		const value = Number(t);
		if (t.trim() === '' || !Number.isFinite(value) || value < 0) throw new Error(`${t} is not a time in seconds`);
		return value;
	});
	installNodeStandIns();
	captureConsole();
	process.stdout.write(JSON.stringify(await play(vrmFile, vrmaFile, times)) + '\n');
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write(`vrma-play.mjs: ${e?.stack ?? e}\n`);
	process.exit(2);
});

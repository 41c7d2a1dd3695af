// vrm-load.mjs [--frames N] [--delta SECONDS] [--offset X,Y,Z] [--expression NAME]... [--] FILE...
// Loads each .vrm (a .glb with VRMC_vrm and VRMC_springBone) with three.js's GLTFLoader and
// @pixiv/three-vrm's VRMLoaderPlugin, as a VRM viewer would, and prints one JSON array on stdout:
// per file what three-vrm made of it, read from its own objects (the VRM instance at
// `gltf.userData.vrm`: meta, humanoid, expressions, look-at, first person, spring bones), and two
// behaviour probes: every expression set to 1 and the vertices its morph targets move, and the
// spring bones simulated after the model is moved. Shape in README.md.
//
// Exits 0 whenever it could run, however badly a file loads (that goes in its `errors`);
// non-zero, with the reason on stderr, only when it cannot (bad arguments, an unreadable file).
// Resources are read only from a file's own folder, with the stand-ins of node-gltf.mjs.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import {
	VRMExpressionMaterialColorBind,
	VRMExpressionMorphTargetBind,
	VRMExpressionPresetName,
	VRMExpressionTextureTransformBind,
	VRMHumanBoneList,
	VRMLoaderPlugin,
	VRMLookAtBoneApplier,
	VRMLookAtExpressionApplier,
	VRMMetaLoaderPlugin,
	VRMSpringBoneCollider,
} from '@pixiv/three-vrm';
import { captureConsole, installNodeStandIns, parse, withFile } from './node-gltf.mjs';

const USAGE = 'usage: node vrm-load.mjs [--frames N] [--delta SECONDS] [--offset X,Y,Z] [--expression NAME]... [--] FILE...';

/** A vertex moved by an expression when its morphed position is farther than this (metres). */
const MOVED = 1e-7;

/** A spring node moved in the probe when it strayed farther than this from where it sat (metres). */
const SPRING_MOVED = 1e-6;

/** How many of the most moved vertices an expression probe lists per mesh. */
const SAMPLES = 5;

class UsageError extends Error {}

function parseArgs(argv) {
	const options = { frames: 60, delta: 1 / 60, offset: [0.1, 0, 0], expressions: null, files: [] };
	const value = (i, flag) => {
		if (i + 1 >= argv.length) throw new UsageError(`${flag} needs a value`);
		return argv[i + 1];
	};
	let i = 0;
	for (; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--') {
			i++;
			break;
		} else if (a === '--frames') {
			options.frames = Number(value(i++, a));
			if (!Number.isInteger(options.frames) || options.frames < 1 || options.frames > 100_000) {
				throw new UsageError('--frames takes a whole number from 1 to 100000');
			}
		} else if (a === '--delta') {
			options.delta = Number(value(i++, a));
			if (!(options.delta > 0 && options.delta <= 1)) throw new UsageError('--delta takes seconds above 0, at most 1');
		} else if (a === '--offset') {
			options.offset = value(i++, a).split(',').map(Number);
			if (options.offset.length !== 3 || !options.offset.every(Number.isFinite)) {
				throw new UsageError('--offset takes three numbers, X,Y,Z (metres)');
			}
		} else if (a === '--expression') {
			options.expressions ??= [];
			options.expressions.push(value(i++, a));
		} else if (a.startsWith('-')) {
			throw new UsageError(`unknown option ${a}`);
		} else {
			options.files.push(a);
		}
	}
	options.files.push(...argv.slice(i));
	if (options.files.length === 0) throw new UsageError('name the files');
	return options;
}

/**
 * GLTFLoader with three-vrm's plugin at its defaults (a viewer's setup), but asking for the
 * thumbnail image, which it skips by default. Its meta plugin accepts only VRM's own licence URL
 * (`https://vrm.dev/licenses/1.0/`), as three-vrm's users get it.
 */
function makeLoader() {
	const loader = new GLTFLoader();
	loader.register(
		(parser) => new VRMLoaderPlugin(parser, { metaPlugin: new VRMMetaLoaderPlugin(parser, { needThumbnailImage: true }) }),
	);
	return loader;
}

/** The glTF node `object` came from (or its nearest ancestor that is a node): `{node, nodeIndex}`. */
function gltfNode(parser, object) {
	for (let o = object; o; o = o.parent) {
		const index = parser.associations.get(o)?.nodes;
		if (index !== undefined) return { node: parser.json.nodes?.[index]?.name ?? null, nodeIndex: index };
	}
	return { node: null, nodeIndex: null };
}

const array = (v) => (v ? v.toArray() : null);

/** `list.indexOf(item)`, or null when it is not there. */
function indexIn(list, item) {
	const index = list.indexOf(item);
	return index < 0 ? null : index;
}

function metaReport(meta) {
	if (!meta) return null;
	const thumbnail = meta.metaVersion === '0' ? meta.texture?.image : meta.thumbnailImage;
	const common = {
		metaVersion: meta.metaVersion,
		thumbnail: thumbnail ? { width: thumbnail.width ?? null, height: thumbnail.height ?? null } : null,
	};
	if (meta.metaVersion === '0') {
		return { ...common, name: meta.title ?? null, version: meta.version ?? null, authors: meta.author ? [meta.author] : [] };
	}
	return {
		...common,
		name: meta.name ?? null,
		version: meta.version ?? null,
		authors: meta.authors ?? [],
		copyrightInformation: meta.copyrightInformation ?? null,
		contactInformation: meta.contactInformation ?? null,
		references: meta.references ?? [],
		thirdPartyLicenses: meta.thirdPartyLicenses ?? null,
		licenseUrl: meta.licenseUrl ?? null,
		avatarPermission: meta.avatarPermission ?? null,
		allowExcessivelyViolentUsage: meta.allowExcessivelyViolentUsage ?? null,
		allowExcessivelySexualUsage: meta.allowExcessivelySexualUsage ?? null,
		commercialUsage: meta.commercialUsage ?? null,
		allowPoliticalOrReligiousUsage: meta.allowPoliticalOrReligiousUsage ?? null,
		allowAntisocialOrHateUsage: meta.allowAntisocialOrHateUsage ?? null,
		creditNotation: meta.creditNotation ?? null,
		allowRedistribution: meta.allowRedistribution ?? null,
		modification: meta.modification ?? null,
		otherLicenseUrl: meta.otherLicenseUrl ?? null,
	};
}

/** The human bones three-vrm found (in its list's order), each with its glTF node. */
function humanoidReport(vrm, parser) {
	const humanoid = vrm.humanoid;
	const names = [...VRMHumanBoneList, ...Object.keys(humanoid.humanBones).filter((n) => !VRMHumanBoneList.includes(n))];
	const humanBones = names
		.filter((name) => humanoid.getRawBoneNode(name))
		.map((name) => ({ bone: name, ...gltfNode(parser, humanoid.getRawBoneNode(name)) }));
	const root = humanoid.normalizedHumanBonesRoot;
	let inScene = false;
	for (let o = root; o; o = o.parent) if (o === vrm.scene) inScene = true;
	return {
		humanBones,
		normalizedRig: root
			? { root: root.name, inScene, bones: VRMHumanBoneList.filter((n) => humanoid.getNormalizedBoneNode(n)).length }
			: null,
		restPoseDrift: null,
	};
}

function expressionReport(expression, parser, presets) {
	const binds = expression.binds;
	return {
		name: expression.expressionName,
		preset: presets.has(expression.expressionName),
		isBinary: expression.isBinary,
		overrideBlink: expression.overrideBlink,
		overrideLookAt: expression.overrideLookAt,
		overrideMouth: expression.overrideMouth,
		morphTargetBinds: binds
			.filter((b) => b instanceof VRMExpressionMorphTargetBind)
			.map((b) => ({ ...gltfNode(parser, b.primitives[0]), primitives: b.primitives.map((p) => p.name), index: b.index, weight: b.weight })),
		materialColorBinds: binds
			.filter((b) => b instanceof VRMExpressionMaterialColorBind)
			.map((b) => ({ material: b.material.name, type: b.type, targetValue: b.targetValue.toArray(), targetAlpha: b.targetAlpha })),
		textureTransformBinds: binds
			.filter((b) => b instanceof VRMExpressionTextureTransformBind)
			.map((b) => ({ material: b.material.name, scale: b.scale.toArray(), offset: b.offset.toArray() })),
	};
}

function lookAtReport(lookAt) {
	if (!lookAt) return null;
	const a = lookAt.applier;
	const map = (m) => (m ? { inputMaxValue: m.inputMaxValue, outputScale: m.outputScale } : null);
	const applier =
		a instanceof VRMLookAtBoneApplier ? 'VRMLookAtBoneApplier' : a instanceof VRMLookAtExpressionApplier ? 'VRMLookAtExpressionApplier' : (a?.constructor?.name ?? null);
	return {
		type: a?.constructor?.type ?? null,
		applier,
		offsetFromHeadBone: lookAt.offsetFromHeadBone.toArray(),
		rangeMapHorizontalInner: map(a?.rangeMapHorizontalInner),
		rangeMapHorizontalOuter: map(a?.rangeMapHorizontalOuter),
		rangeMapVerticalDown: map(a?.rangeMapVerticalDown),
		rangeMapVerticalUp: map(a?.rangeMapVerticalUp),
	};
}

function firstPersonReport(firstPerson, parser) {
	if (!firstPerson) return null;
	return {
		meshAnnotations: firstPerson.meshAnnotations.map((a) => ({
			...gltfNode(parser, a.meshes[0]),
			meshes: a.meshes.map((m) => m.name),
			type: a.type,
		})),
	};
}

/**
 * The spring bones as three-vrm made them: its joints (one per pair of neighbouring joints of a
 * spring in the file, the node and its child), every collider in the scene and the collider
 * groups the joints use.
 */
function springBonesReport(vrm, parser) {
	const manager = vrm.springBoneManager;
	if (!manager) return null;
	const colliders = [];
	vrm.scene.traverse((o) => {
		if (o instanceof VRMSpringBoneCollider) colliders.push(o);
	});
	const groups = manager.colliderGroups;
	const joints = [...manager.joints].map((j) => {
		const child = j.child ? gltfNode(parser, j.child) : { node: null, nodeIndex: null };
		return {
			...gltfNode(parser, j.bone),
			child: child.node,
			childIndex: child.nodeIndex,
			hitRadius: j.settings.hitRadius,
			stiffness: j.settings.stiffness,
			gravityPower: j.settings.gravityPower,
			gravityDir: j.settings.gravityDir.toArray(),
			dragForce: j.settings.dragForce,
			colliderGroups: j.colliderGroups.map((g) => indexIn(groups, g)),
			center: j.center ? gltfNode(parser, j.center).node : null,
		};
	});
	return {
		joints,
		colliders: colliders.map((c) => ({
			...gltfNode(parser, c),
			shape: c.shape.type,
			offset: array(c.shape.offset),
			radius: c.shape.radius ?? null,
			tail: array(c.shape.tail),
			normal: array(c.shape.normal),
			inside: c.shape.inside ?? null,
		})),
		colliderGroups: groups.map((g) => ({ name: g.name ?? null, colliders: g.colliders.map((c) => indexIn(colliders, c)) })),
	};
}

/**
 * The angle (radians) of the rotation from `a` to `b`, each normalized first. Not three's
 * `angleTo`: its `acos` of a dot product near 1 reads a quaternion's norm off by 1e-8 (which
 * three-vrm's rig update leaves) as 3e-4 rad; the half-angle's sine from the vector part does not.
 */
function rotationBetween(a, b) {
	const d = a.clone().normalize().invert().multiply(b.clone().normalize());
	return 2 * Math.atan2(Math.hypot(d.x, d.y, d.z), Math.abs(d.w));
}

/**
 * How far the human bones' local rotations (radians) and translations (metres) moved from the
 * file's rest pose in the first `vrm.update(0)`: three-vrm copies its normalized rig onto the
 * bones every update, so a rig it normalizes wrongly shows here.
 */
function restPoseDrift(vrm) {
	const humanoid = vrm.humanoid;
	const bones = VRMHumanBoneList.map((n) => humanoid.getRawBoneNode(n)).filter(Boolean);
	const rest = bones.map((b) => ({ q: b.quaternion.clone(), p: b.position.clone() }));
	vrm.update(0);
	let rotation = 0;
	let translation = 0;
	bones.forEach((b, i) => {
		rotation = Math.max(rotation, rotationBetween(rest[i].q, b.quaternion));
		translation = Math.max(translation, b.position.distanceTo(rest[i].p));
	});
	return { rotation, translation };
}

/** Every mesh of the scene with morph targets. */
function morphedMeshes(scene) {
	const meshes = [];
	scene.traverse((o) => {
		if (o.isMesh && o.morphTargetInfluences?.length) meshes.push(o);
	});
	return meshes;
}

/** The morph delta of target `t` at vertex `v`, component `c` (relative or absolute targets). */
function morphDelta(geometry, t, v, c) {
	const target = geometry.morphAttributes.position[t];
	const value = target.getComponent(v, c);
	return geometry.morphTargetsRelative ? value : value - geometry.attributes.position.getComponent(v, c);
}

/** A vertex's unskinned position under morph `weights` (index to weight; zeros skipped). */
function morphedPosition(geometry, weights, v) {
	const p = [0, 1, 2].map((c) => geometry.attributes.position.getComponent(v, c));
	weights.forEach((w, t) => {
		if (w !== 0) for (let c = 0; c < 3; c++) p[c] += w * morphDelta(geometry, t, v, c);
	});
	return p;
}

/**
 * What the change of `mesh`'s influences from `before` to `after` does to its vertices
 * (unskinned, the mesh's own space): how many move, the largest move and the most moved few.
 */
function meshMotion(mesh, parser, before, after) {
	const geometry = mesh.geometry;
	const count = geometry.attributes.position?.count ?? 0;
	const change = after.map((w, t) => w - before[t]);
	const active = change.map((w, t) => [w, t]).filter(([w, t]) => w !== 0 && geometry.morphAttributes.position?.[t]);
	let moved = 0;
	let largest = 0;
	let nan = false;
	const top = [];
	for (let v = 0; v < count; v++) {
		let sum = 0;
		for (let c = 0; c < 3; c++) {
			let d = 0;
			for (const [w, t] of active) d += w * morphDelta(geometry, t, v, c);
			sum += d * d;
		}
		const distance = Math.sqrt(sum);
		if (!Number.isFinite(distance)) nan = true;
		if (!(distance > MOVED)) continue;
		moved += 1;
		largest = Math.max(largest, distance);
		top.push({ index: v, displacement: distance });
		if (top.length > SAMPLES * 4) top.sort((a, b) => b.displacement - a.displacement || a.index - b.index).length = SAMPLES;
	}
	top.sort((a, b) => b.displacement - a.displacement || a.index - b.index);
	return {
		mesh: mesh.name,
		...gltfNode(parser, mesh),
		vertexCount: count,
		movedVertices: moved,
		maxDisplacement: nan ? NaN : largest,
		nan,
		samples: top.slice(0, SAMPLES).map(({ index, displacement }) => ({
			index,
			position: morphedPosition(geometry, before, index),
			morphed: morphedPosition(geometry, after, index),
			displacement,
		})),
	};
}

/** The morph target's name in `mesh` (from `morphTargetDictionary`), or null. */
function targetName(mesh, index) {
	for (const [name, i] of Object.entries(mesh.morphTargetDictionary ?? {})) if (i === index) return name;
	return null;
}

/**
 * Sets expression `name` to 1 alone (every other at 0) through the expression manager, runs
 * `vrm.update(0)`, and reports the morph influences that changed or are not zero and, per mesh
 * the expression binds or whose influences changed, what that does to its vertices.
 */
function expressionProbe(vrm, parser, name, meshes, errors) {
	const manager = vrm.expressionManager;
	const expression = manager.getExpression(name);
	if (!expression) {
		errors.push(`expression probe: ${JSON.stringify(name)} is not registered`);
		return { expression: name, registered: false, weight: null, outputWeight: null, influences: [], meshes: [] };
	}
	manager.resetValues();
	vrm.update(0);
	const before = meshes.map((m) => [...m.morphTargetInfluences]);
	manager.setValue(name, 1);
	vrm.update(0);
	const after = meshes.map((m) => [...m.morphTargetInfluences]);
	const bound = new Set(expression.binds.flatMap((b) => (b instanceof VRMExpressionMorphTargetBind ? b.primitives : [])));
	const influences = [];
	const motions = [];
	meshes.forEach((mesh, k) => {
		let changed = false;
		after[k].forEach((value, index) => {
			if (value !== before[k][index]) changed = true;
			if (value !== 0 || value !== before[k][index]) {
				influences.push({ mesh: mesh.name, index, name: targetName(mesh, index), before: before[k][index], after: value });
			}
		});
		if (changed || bound.has(mesh)) motions.push(meshMotion(mesh, parser, before[k], after[k]));
	});
	if (motions.some((m) => m.nan)) errors.push(`expression probe ${name}: a morphed position is not a number`);
	const report = { expression: name, registered: true, weight: expression.weight, outputWeight: expression.outputWeight, influences, meshes: motions };
	manager.resetValues();
	vrm.update(0);
	return report;
}

/**
 * The spring bones' behaviour: every node of every joint (its bone and child) where it stands,
 * then `frames` updates of `delta` s in place (gravity settles the springs), then the whole model
 * moved by `offset` at once and `frames` more updates. Per node: how far it settled from rest,
 * and how far it strayed at most (`peak`) and at the end (`final`) from where it would be had it
 * moved rigidly with the model.
 */
function springProbe(vrm, parser, options, errors) {
	const manager = vrm.springBoneManager;
	if (!manager || manager.joints.size === 0) return null;
	const nodes = [];
	for (const j of manager.joints) for (const o of [j.bone, j.child]) if (o && !nodes.includes(o)) nodes.push(o);
	const positions = () => nodes.map((o) => o.getWorldPosition(new THREE.Vector3()));
	vrm.scene.updateMatrixWorld(true);
	const rest = positions();
	for (let f = 0; f < options.frames; f++) vrm.update(options.delta);
	const settled = positions();
	const offset = new THREE.Vector3(...options.offset);
	vrm.scene.position.add(offset);
	vrm.scene.updateMatrixWorld(true);
	const peak = nodes.map(() => 0);
	let strayed = [];
	let nan = false;
	for (let f = 0; f < options.frames; f++) {
		vrm.update(options.delta);
		strayed = positions().map((p, i) => p.sub(settled[i]).sub(offset).length());
		strayed.forEach((d, i) => {
			if (!Number.isFinite(d)) nan = true;
			peak[i] = nan ? NaN : Math.max(peak[i], d);
		});
	}
	vrm.scene.position.sub(offset);
	vrm.scene.updateMatrixWorld(true);
	const settledBy = settled.map((p, i) => p.distanceTo(rest[i]));
	if (nan || settledBy.some((d) => !Number.isFinite(d))) {
		nan = true;
		errors.push(`spring probe: a spring node's position became NaN within ${2 * options.frames} updates`);
	}
	const max = (values) => values.reduce((a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b)), 0);
	return {
		frames: options.frames,
		delta: options.delta,
		offset: options.offset,
		nodes: nodes.map((o, i) => ({
			...gltfNode(parser, o),
			rest: rest[i].toArray(),
			settled: settledBy[i],
			peak: peak[i],
			final: strayed[i],
		})),
		moved: peak.filter((d) => d > SPRING_MOVED).length,
		maxSettled: max(settledBy),
		maxPeak: max(peak),
		maxFinal: max(strayed),
		nan,
	};
}

/** The report of one loaded file: three-vrm's objects first, then the probes (which update it). */
function report(file, gltf, options, log) {
	const vrm = gltf.userData.vrm;
	const out = emptyReport(file);
	if (!vrm) {
		log.errors.push('three-vrm made no VRM (no VRMC_vrm, or one without meta or humanoid)');
		return out;
	}
	const parser = gltf.parser;
	const presets = new Set(Object.values(VRMExpressionPresetName));
	out.vrm = true;
	out.meta = metaReport(vrm.meta);
	out.humanoid = humanoidReport(vrm, parser);
	out.expressions = vrm.expressionManager ? vrm.expressionManager.expressions.map((e) => expressionReport(e, parser, presets)) : [];
	out.lookAt = lookAtReport(vrm.lookAt);
	out.firstPerson = firstPersonReport(vrm.firstPerson, parser);
	out.springBones = springBonesReport(vrm, parser);

	try {
		out.humanoid.restPoseDrift = restPoseDrift(vrm);
		if (vrm.expressionManager) {
			const meshes = morphedMeshes(vrm.scene);
			const names = options.expressions ?? out.expressions.map((e) => e.name);
			out.expressionProbes = names.map((name) => expressionProbe(vrm, parser, name, meshes, log.errors));
		} else if (options.expressions) {
			log.errors.push('expression probe: three-vrm made no expression manager');
		}
		out.springProbe = springProbe(vrm, parser, options, log.errors);
	} catch (e) {
		log.errors.push(`a probe failed: ${e?.message ?? e}`);
	}
	return out;
}

function emptyReport(file) {
	return {
		file,
		vrm: false,
		meta: null,
		humanoid: null,
		expressions: [],
		lookAt: null,
		firstPerson: null,
		springBones: null,
		expressionProbes: [],
		springProbe: null,
	};
}

async function load(file, options) {
	return withFile(file, async ({ bytes, folder, log }) => {
		let out;
		try {
			const gltf = await parse(makeLoader(), bytes, folder);
			out = report(file, gltf, options, log);
		} catch (e) {
			log.errors.push(`not loaded: ${e?.message ?? e}`);
			out = emptyReport(file);
		}
		return { ...out, errors: log.errors, warnings: log.warnings };
	});
}

async function main(argv) {
	let options;
	try {
		options = parseArgs(argv);
	} catch (e) {
		if (e instanceof UsageError) {
			process.stderr.write(`vrm-load.mjs: ${e.message}\n${USAGE}\n`);
			process.exit(2);
		}
		throw e;
	}
	installNodeStandIns();
	captureConsole();
	const reports = [];
	for (const file of options.files) {
		reports.push(await load(file, options));
	}
	// NaN and infinities become null (JSON has neither); `nan` flags and `errors` say so.
	process.stdout.write(JSON.stringify(reports, null, 1) + '\n');
}

main(process.argv.slice(2)).catch((e) => {
	process.stderr.write(`vrm-load.mjs: ${e?.stack ?? e}\n`);
	process.exit(2);
});

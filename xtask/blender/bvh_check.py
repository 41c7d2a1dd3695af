"""Reads MakeHuman's BVH poses with Blender's own BVH importer and reports each bone's world
rotation from rest at the first frame; then poses the armatures of our .glb files by those
rotations and reports what the armature modifier makes of their body.

Run by `cargo xtask blender-bvh-check` (alone: no rig is built here):
  blender -b --factory-startup --python bvh_check.py -- REQUEST.json RESULT.json

REQUEST: {"poses": {name: path.bvh}, "rigs": {rig: {"glb": path, "body": mesh object name,
  "counterparts": {glb bone: BVH joint or null}, "stride": n}}}.
RESULT, Blender space (Z up), metres: {"poses": {name: {"frame": scene frame read (the
  importer puts the file's first frame at frame 1), "rotations": {joint: [w, x, y, z]}}},
  "rigs": {rig: {"vertices": count, "rest": [[x, y, z], ...] (every stride-th body vertex),
  "posed": {pose: [[x, y, z], ...]}, "unposed_bones": [glb bones without a counterpart]}}}.

The importer is called with axis_forward='Y', axis_up='Z' (as MPFB's `import_bvh_file_as_pose`
does): MakeHuman's files are Z-up, so that is no axis change and the armature is in the file's
own axes, which are Blender's. A bone's world rotation from rest is its posed world matrix
times its rest world matrix inverted (rotation parts): for a BVH import that is the product of
the joints' rotations from the root down, whatever the bones' rolls.
"""
import builtins
import json
import sys

import bpy
from mathutils import Matrix, Quaternion

args = sys.argv[sys.argv.index("--") + 1:]
request = json.load(open(args[0]))


def importer_open(path, mode="r", *rest, **named):
    """Blender 3.4's importer opens with mode 'rU', which Python 3.11 removed ('U' has long
    been the default: universal newlines); the mode is mended, nothing else changes."""
    return builtins.open(path, mode.replace("U", ""), *rest, **named)


def import_bvh(path):
    """Blender's BVH importer on `path`; the armature object it made, at the first frame."""
    from io_anim_bvh import import_bvh as module

    module.open = importer_open
    before = set(bpy.data.objects)
    bpy.ops.import_anim.bvh(
        filepath=path,
        axis_forward="Y",
        axis_up="Z",
        rotate_mode="NATIVE",
        frame_start=1,
        use_fps_scale=False,
        update_scene_fps=False,
        update_scene_duration=False,
        global_scale=1.0,
    )
    made = [o for o in bpy.data.objects if o not in before and o.type == "ARMATURE"]
    if len(made) != 1:
        raise RuntimeError(f"{path}: {len(made)} armatures imported")
    bpy.context.scene.frame_set(1)
    bpy.context.view_layer.update()
    return made[0]


def rotation_from_rest(arm, pb):
    """World rotation taking the bone's rest to its pose (3x3, orthonormalised)."""
    posed = (arm.matrix_world @ pb.matrix).to_3x3().normalized()
    rest = (arm.matrix_world @ pb.bone.matrix_local).to_3x3().normalized()
    return posed @ rest.inverted()


def quaternion(matrix):
    q = matrix.to_quaternion().normalized()
    if q.w < 0.0:
        q.negate()
    return [round(c, 6) for c in (q.w, q.x, q.y, q.z)]


def read_pose(path):
    arm = import_bvh(path)
    rotations = {pb.name: quaternion(rotation_from_rest(arm, pb)) for pb in arm.pose.bones}
    result = {
        "frame": bpy.context.scene.frame_current,
        "rotations": rotations,
        "matrices": {pb.name: rotation_from_rest(arm, pb) for pb in arm.pose.bones},
    }
    bpy.data.objects.remove(arm)
    return result


def depth(pb):
    return len(pb.parent_recursive)


def pose_armature(arm, counterparts, world):
    """Gives each bone the world rotation from rest of its counterpart joint (a bone without
    one keeps its parent's), each turned about its own rest head carried by its parent: the
    local rotation is rest^-1 (W_parent^-1 W) rest, with no translation."""
    frame = arm.matrix_world.to_3x3().normalized()
    wanted = {}
    for pb in sorted(arm.pose.bones, key=depth):
        joint = counterparts.get(pb.name)
        if joint is not None:
            w = frame.inverted() @ world[joint] @ frame  # armature axes
        elif pb.parent is not None:
            w = wanted[pb.parent.name]
        else:
            w = Matrix.Identity(3)
        wanted[pb.name] = w
        parent = wanted[pb.parent.name] if pb.parent is not None else Matrix.Identity(3)
        rest = pb.bone.matrix_local.to_3x3().normalized()
        local = rest.inverted() @ parent.inverted() @ w @ rest
        pb.rotation_mode = "QUATERNION"
        pb.rotation_quaternion = local.to_quaternion()
        pb.location = (0.0, 0.0, 0.0)
        pb.scale = (1.0, 1.0, 1.0)
    bpy.context.view_layer.update()
    # Blender's own pose against the rotations asked for (a check of the above).
    worst = 0.0
    for pb in arm.pose.bones:
        got = rotation_from_rest(arm, pb)
        asked = frame @ wanted[pb.name] @ frame.inverted()
        worst = max(worst, max(abs(got[r][c] - asked[r][c]) for r in range(3) for c in range(3)))
    return worst


def body_positions(body, stride):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = body.evaluated_get(depsgraph)
    matrix = evaluated.matrix_world
    vertices = evaluated.data.vertices
    return [
        [round(c, 7) for c in matrix @ vertices[i].co] for i in range(0, len(vertices), stride)
    ]


def check_rig(rig, poses):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=rig["glb"], import_shading="SMOOTH")
    armatures = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    if len(armatures) != 1:
        raise RuntimeError(f"{rig['glb']}: {len(armatures)} armatures imported")
    arm = armatures[0]
    body = bpy.data.objects[rig["body"]]
    counterparts = rig["counterparts"]
    missing = [b for b in counterparts if b not in arm.pose.bones]
    if missing:
        raise RuntimeError(f"{rig['glb']}: no bones {missing}")
    for pb in arm.pose.bones:
        pb.rotation_mode = "QUATERNION"
        pb.matrix_basis = Matrix.Identity(4)
    bpy.context.view_layer.update()
    stride = rig["stride"]
    out = {
        "vertices": len(body.data.vertices),
        "rest": body_positions(body, stride),
        "posed": {},
        "pose_error": {},
        "unposed_bones": sorted(b for b, j in counterparts.items() if j is None),
    }
    for name, pose in poses.items():
        known = {b: j if j in pose["matrices"] else None for b, j in counterparts.items()}
        out["pose_error"][name] = pose_armature(arm, known, pose["matrices"])
        out["posed"][name] = body_positions(body, stride)
    return out


poses = {}
for name, path in request["poses"].items():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    poses[name] = read_pose(path)

rigs = {name: check_rig(rig, poses) for name, rig in request["rigs"].items()}
for pose in poses.values():
    del pose["matrices"]
json.dump({"poses": poses, "rigs": rigs}, open(args[1], "w"))

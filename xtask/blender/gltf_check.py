"""Imports our glTF files with Blender's own importer, turns named bones in world space about
their heads and dumps what the armature modifier makes of every mesh, with the shape keys.

Run by `cargo xtask blender-gltf-check` (alone: no rig is built here):
  blender -b --factory-startup --python gltf_check.py -- REQUEST.json RESULT.json

REQUEST: {"variants": {name: {"glb": path, "turns": [{"bone", "axis": [x, y, z], "degrees"}]}}},
axes in glTF space (Y up). RESULT, Blender space (Z up), metres: {name: {
  "armature": object name, "bones": count,
  "bones_at_import": {bone: {"head", "y_axis", "rest_head"}} (posed head and +Y axis as imported,
      and the edit bone's head, all in world space),
  "turned": {bone: {"head", "matrix_error"}} (the head each turn was about, and how far the pose
      bone's world matrix is from the one asked for),
  "meshes": {object: {"rest": [[x, y, z], ...], "posed": [...], "vertex_groups": count}}
      (every vertex in world space as imported, and with the bones turned),
  "shape_keys": {object: [{"name", "offsets": [[vertex, dx, dy, dz], ...]}]} (each key after
      the basis, its non-zero offsets from the basis in world axes)}}.
"""
import json
import math
import sys

import bpy
from mathutils import Matrix, Vector

args = sys.argv[sys.argv.index("--") + 1:]
request = json.load(open(args[0]))


def world_positions(obj):
    """Every vertex of the evaluated (deformed) mesh in world space."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    matrix = evaluated.matrix_world
    return [list(matrix @ v.co) for v in evaluated.data.vertices]


def shape_keys(obj):
    keys = obj.data.shape_keys
    if keys is None:
        return []
    basis = keys.reference_key
    linear = obj.matrix_world.to_3x3()
    out = []
    for block in keys.key_blocks:
        if block == basis:
            continue
        offsets = []
        for i, (b, k) in enumerate(zip(basis.data, block.data)):
            d = k.co - b.co
            if d.length_squared > 0.0:
                d = linear @ d
                offsets.append([i, d.x, d.y, d.z])
        out.append({"name": block.name, "offsets": offsets})
    return out


def turn(arm, bone, axis, degrees):
    """Turns `bone` by `degrees` about the world `axis` (Blender space) through its head."""
    pb = arm.pose.bones[bone]
    world = arm.matrix_world @ pb.matrix
    head = world.translation.copy()
    rotation = Matrix.Rotation(math.radians(degrees), 4, axis.normalized())
    wanted = Matrix.Translation(head) @ rotation @ Matrix.Translation(-head) @ world
    pb.matrix = arm.matrix_world.inverted() @ wanted
    bpy.context.view_layer.update()
    got = arm.matrix_world @ pb.matrix
    error = max(abs(got[r][c] - wanted[r][c]) for r in range(4) for c in range(4))
    return {"head": list(head), "matrix_error": error}


def depth(pb):
    return len(pb.parent_recursive)


result = {}
for name, variant in request["variants"].items():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=variant["glb"], import_shading="SMOOTH")
    bpy.context.view_layer.update()
    armatures = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    if len(armatures) != 1:
        raise RuntimeError(f"{name}: {len(armatures)} armatures imported")
    arm = armatures[0]
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    at_import = {}
    for pb in arm.pose.bones:
        world = arm.matrix_world @ pb.matrix
        at_import[pb.name] = {
            "head": list(world.translation),
            "y_axis": list(world.to_3x3().col[1].normalized()),
            "rest_head": list(arm.matrix_world @ pb.bone.head_local),
        }
    rest = {o.name: world_positions(o) for o in meshes}
    turned = {}
    # Parents first, each turn about the head where the turns before it left it.
    for t in sorted(variant["turns"], key=lambda t: depth(arm.pose.bones[t["bone"]])):
        x, y, z = t["axis"]
        axis = Vector((x, -z, y))  # glTF (Y up) to Blender (Z up)
        turned[t["bone"]] = turn(arm, t["bone"], axis, t["degrees"])
    result[name] = {
        "armature": arm.name,
        "bones": len(arm.pose.bones),
        "bones_at_import": at_import,
        "turned": turned,
        "meshes": {
            o.name: {
                "rest": rest[o.name],
                "posed": world_positions(o),
                "vertex_groups": len(o.vertex_groups),
            }
            for o in meshes
        },
        "shape_keys": {o.name: shape_keys(o) for o in meshes if o.data.shape_keys},
    }

json.dump(result, open(args[1], "w"))

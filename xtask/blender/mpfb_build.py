"""Builds MPFB rigs in Blender the way MPFB does: shared by the Blender-side checks
(`check_rigs.py`, `pose_check.py`), which `cargo xtask` runs with this file prepended.

The request's "obj" is base.obj; `vertices` and `cubes` are what MPFB sees in Blender.
"""
import json
import sys

import bpy
from mathutils import Matrix, Vector

args = sys.argv[sys.argv.index("--") + 1:]
request = json.load(open(args[0]))

# base.obj as MPFB sees it in Blender: (x, -z, y) * 0.1, stored as f32 mesh coordinates.
vertices = []
groups = {}
current = None
for line in open(request["obj"]):
    parts = line.split()
    if not parts:
        continue
    if parts[0] == "v":
        x, y, z = map(float, parts[1:4])
        vertices.append(Vector((x * 0.1, -z * 0.1, y * 0.1)))  # Vector stores f32
    elif parts[0] == "g":
        current = parts[1] if len(parts) > 1 else None
    elif parts[0] == "f" and current and "joint" in current:
        groups.setdefault(current, set()).update(int(t.split("/")[0]) - 1 for t in parts[1:])

cubes = {}
for name, members in groups.items():
    total = Vector((0.0, 0.0, 0.0))
    for i in members:
        total += vertices[i]
    cubes[name] = total / len(members)


def location(info, relative_scale):
    """MPFB's get_best_location_from_strategy."""
    strategy = info["strategy"]
    loc = None
    if strategy == "CUBE":
        loc = cubes.get(info["cube_name"])
    elif strategy == "VERTEX":
        loc = vertices[info["vertex_index"]]
    elif strategy == "MEAN":
        vs = [vertices[i] for i in info["vertex_indices"]]
        loc = Vector([sum(v[i] for v in vs) / len(vs) for i in range(3)])
    elif strategy == "XYZ":
        vs = [vertices[i] for i in info["vertex_indices"]]
        loc = Vector([vs[i][i] for i in range(3)])
    if loc is not None and "offset" in info:
        loc = Vector([a + b * relative_scale for a, b in zip(loc, info["offset"])])
    if loc is None:
        loc = Vector(info["default_position"])
    return loc


def matrix_from_axis_pair(y_axis, other_axis, axis_name):
    """MPFB's helper of the same name."""
    y_axis = Vector(y_axis).normalized()
    if axis_name == "x":
        z_axis = Vector(other_axis).cross(y_axis).normalized()
        x_axis = y_axis.cross(z_axis)
    else:
        x_axis = y_axis.cross(other_axis).normalized()
        z_axis = x_axis.cross(y_axis)
    return Matrix((x_axis, y_axis, z_axis)).transposed()



def build_armature(rig_name, rig_path):
    """An armature object with the rig's edit bones placed and rolled as MPFB does; returns
    (object, {bone: {"head", "tail", "roll", "matrix"}}), left in object mode."""
    data = json.load(open(rig_path))
    header = data if "bones" in data else {}
    bones = data.get("bones", data)
    relative_scale = 1.0
    if header.get("scale_factor"):
        relative_scale = 0.1 / header["scale_factor"]
    arm_data = bpy.data.armatures.new(rig_name)
    obj = bpy.data.objects.new(rig_name, arm_data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    out = {}
    for name, info in bones.items():
        bone = arm_data.edit_bones.new(name)
        bone.roll = info["roll"]
        bone.head = location(info["head"], relative_scale)
        bone.tail = location(info["tail"], relative_scale)
        strategy = info.get("roll_strategy")
        matrix = None
        if strategy == "ALIGN_Z_WORLD_Z":
            matrix = matrix_from_axis_pair(bone.y_axis, (0, 0, 1), "z")
        elif strategy == "ALIGN_X_WORLD_X":
            matrix = matrix_from_axis_pair(bone.y_axis, (1, 0, 0), "x")
        elif strategy == "ALIGN_Z_REFERENCE_Z":
            matrix = matrix_from_axis_pair(bone.y_axis, info["roll_reference_z"], "z")
        if matrix:
            bone.roll = bpy.types.Bone.AxisRollFromMatrix(matrix, axis=bone.y_axis)[1]
        m = bone.matrix.to_3x3()
        out[name] = {
            "head": list(bone.head),
            "tail": list(bone.tail),
            "roll": bone.roll,
            "matrix": [list(m.col[0]), list(m.col[1]), list(m.col[2])],
        }
    # Parents, as MPFB sets them (after every bone exists).
    for name, info in bones.items():
        parent = info.get("parent")
        if parent and parent in arm_data.edit_bones:
            arm_data.edit_bones[name].parent = arm_data.edit_bones[parent]
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj, out

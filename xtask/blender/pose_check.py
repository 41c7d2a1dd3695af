"""Poses MPFB rigs in Blender with MPFB's T-pose files through the armature modifier and dumps
the deformed vertices and the posed bone heads.

Run by `cargo xtask blender-pose-check` (with mpfb_build.py prepended):
  blender -b --factory-startup --python pose_check.py -- REQUEST.json RESULT.json

REQUEST: {"obj": path, "rigs": {name: {"rig", "weights", "pose"}}}. RESULT: {name:
{"vertices": [[x, y, z], ...] (every base.obj vertex), "heads": {bone: [x, y, z]}}}, Blender
space, metres.
"""

result = {}
for rig_name, paths in request["rigs"].items():
    arm_obj, edit = build_armature(rig_name, paths["rig"])
    mesh = bpy.data.meshes.new(rig_name + "_body")
    mesh.from_pydata([tuple(v) for v in vertices], [], [])
    body = bpy.data.objects.new(rig_name + "_body", mesh)
    bpy.context.scene.collection.objects.link(body)
    weights = json.load(open(paths["weights"]))["weights"]
    for group, pairs in weights.items():
        vg = body.vertex_groups.new(name=group)
        for v, w in pairs:
            vg.add([int(v)], float(w), "REPLACE")
    modifier = body.modifiers.new("Armature", "ARMATURE")
    modifier.object = arm_obj

    # MPFB's pose loading: clear, translations (scaled for default rigs), then rotations.
    pose = json.load(open(paths["pose"]))
    bpy.context.view_layer.objects.active = arm_obj
    bpy.ops.object.mode_set(mode="POSE")
    for pb in arm_obj.pose.bones:
        pb.location = (0, 0, 0)
        pb.rotation_quaternion = (1, 0, 0, 0)
        pb.rotation_euler = (0, 0, 0)
    scale = Vector((1.0, 1.0, 1.0))
    if "default" in pose.get("skeleton_type", "") and pose.get("original_shoulder_width"):
        spine = (Vector(edit["spine05"]["head"]) - Vector(edit["spine01"]["tail"])).length
        shoulders = (Vector(edit["shoulder01.L"]["tail"]) - Vector(edit["shoulder01.R"]["tail"])).length
        s = shoulders / pose["original_shoulder_width"]
        scale = Vector((s, s, spine / pose["original_spine_length"]))
    for name, t in pose.get("bone_translations", {}).items():
        if name in arm_obj.pose.bones:
            arm_obj.pose.bones[name].location = Vector([a * b for a, b in zip(t, scale)])
    modes = pose.get("bone_rotation_modes", {})
    for name, r in pose.get("bone_rotations", {}).items():
        if name not in arm_obj.pose.bones:
            continue
        pb = arm_obj.pose.bones[name]
        mode = modes.get(name, "QUATERNION" if len(r) == 4 else "XYZ")
        pb.rotation_mode = mode
        if mode == "QUATERNION":
            pb.rotation_quaternion = r
        elif mode == "AXIS_ANGLE":
            pb.rotation_axis_angle = r
        else:
            pb.rotation_euler = r
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = body.evaluated_get(depsgraph)
    result[rig_name] = {
        "vertices": [list(v.co) for v in evaluated.data.vertices],
        "heads": {pb.name: list(pb.head) for pb in arm_obj.pose.bones},
    }

json.dump(result, open(args[1], "w"))

"""Rebuilds MPFB rigs in Blender the way MPFB does and dumps the resulting edit bones.

Run by `cargo xtask blender-check` (with mpfb_build.py prepended):
  blender -b --factory-startup --python check_rigs.py -- REQUEST.json RESULT.json

REQUEST: {"obj": path, "rigs": {name: path}}. RESULT: {name: {bone: {"head", "tail", "roll",
"matrix"}}} with Blender-space values and the 3x3 rest matrix as three columns.
"""

result = {}
for rig_name, rig_path in request["rigs"].items():
    result[rig_name] = build_armature(rig_name, rig_path)[1]

json.dump(result, open(args[1], "w"))

"""Runs inside Blender: ``blender -b --factory-startup --python blender_probe.py -- FILE
[PNG [TARGET [DISTANCE [WxH [lit]]]]]``.

Imports FILE with Blender's own glTF importer into an empty scene and prints one line
``BRSON_COUNTS {json}`` (objects by type, meshes, vertices, materials, images, bones, shape
keys, and each object's world location).  With PNG, also renders the scene with Cycles from a
camera on glTF +Z (Blender -Y) looking at the origin's +X side, and saves the picture there.
``-- --each FILE...`` imports each file in turn and prints one line per file,
``BRSON_EACH {"file": ..., "counts": ...}`` (or ``"error"``).
"""

import json
import sys

import bpy
import numpy

# Debian's Blender 3.4 importer uses ``np.bool``, removed in the numpy 1.24 Debian ships with
# it: give the alias back (the importer only uses it as a dtype).
if "bool" not in numpy.__dict__:
    numpy.bool = bool


def counts_of(path):
    """Import ``path`` into an empty scene and count what Blender made of it."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    objects = list(bpy.data.objects)
    counts = {
        "objects": len(objects),
        "by_type": {},
        "meshes": len(bpy.data.meshes),
        "vertices": sum(len(m.vertices) for m in bpy.data.meshes),
        "materials": len(bpy.data.materials),
        "images": len([i for i in bpy.data.images if i.type == "IMAGE"]),
        "armatures": len(bpy.data.armatures),
        "bones": sum(len(a.bones) for a in bpy.data.armatures),
        "shape_keys": sum(
            len(m.shape_keys.key_blocks) - 1 for m in bpy.data.meshes if m.shape_keys is not None
        ),
        "armature_names": [o.name for o in objects if o.type == "ARMATURE"],
        "locations": {o.name: list(o.matrix_world.translation) for o in objects},
        "uv_by_vertex": {},
    }
    for o in objects:
        counts["by_type"][o.type] = counts["by_type"].get(o.type, 0) + 1
        if o.type == "MESH" and o.data.uv_layers:
            uv = o.data.uv_layers[0].data
            rows = []
            for poly in o.data.polygons:
                normal = o.matrix_world.to_3x3() @ poly.normal
                for loop in poly.loop_indices:
                    v = o.data.loops[loop].vertex_index
                    world = o.matrix_world @ o.data.vertices[v].co
                    rows.append([list(world), list(uv[loop].uv), list(normal)])
            counts["uv_by_vertex"][o.name] = rows
    return counts


args = sys.argv[sys.argv.index("--") + 1 :]
if args[0] == "--each":
    # One Blender for many files (its start is most of a check's cost): a line per file, its
    # counts or the importer's error, each after a reset to the empty factory scene.
    for path in args[1:]:
        try:
            line = {"file": path, "counts": counts_of(path)}
        except Exception as error:  # the test of that file fails with it, the others go on
            line = {"file": path, "error": f"{type(error).__name__}: {error}"}
        print("BRSON_EACH " + json.dumps(line), flush=True)
    sys.exit(0)
counts = counts_of(args[0])
print("BRSON_COUNTS " + json.dumps(counts))

if len(args) > 1:
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.samples = 4
    scene.cycles.device = "CPU"
    scene.cycles.use_denoising = False
    size = args[4] if len(args) > 4 else "160x120"
    scene.render.resolution_x, scene.render.resolution_y = (int(v) for v in size.split("x"))
    if len(args) > 5:  # a sun for shading (the handedness check wants flat colours)
        sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
        sun.data.energy = 3.0
        sun.rotation_euler = (0.9, 0.3, -0.5)
        scene.collection.objects.link(sun)
        scene.cycles.samples = 32
    scene.render.filepath = args[1]
    world = bpy.data.worlds.new("w")
    world.use_nodes = True
    background = world.node_tree.nodes["Background"]
    background.inputs[0].default_value = (1, 1, 1, 1)
    background.inputs[1].default_value = 0.4 if len(args) > 5 else 1.0
    scene.world = world
    target = [float(v) for v in args[2].split(",")] if len(args) > 2 else [0.0, 0.0, 0.0]
    distance = float(args[3]) if len(args) > 3 else 4.0
    cam_data = bpy.data.cameras.new("cam")
    cam = bpy.data.objects.new("cam", cam_data)
    scene.collection.objects.link(cam)
    # glTF +Z is Blender -Y: stand in front (on -Y) and look along +Y.
    cam.location = (target[0], target[1] - distance, target[2])
    cam.rotation_euler = (1.5707963, 0.0, 0.0)
    scene.camera = cam
    bpy.ops.render.render(write_still=True)

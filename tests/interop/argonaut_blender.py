# Renders an animated glTF twice in Blender (headless, Cycles on the CPU): at the first
# and the last frame of its first animation, from a camera that frames the model,
# and reports how much of the picture changed. Used by argonaut_screenshot.sh.
# usage: blender -b --factory-startup -P argonaut_blender.py -- IN.glb OUT_PREFIX
import sys

import bpy
import numpy
from mathutils import Vector

# Debian's Blender 3.4 glTF importer still uses numpy.bool, which numpy 1.24 removed (it
# fails on every mesh with normals): the alias it expects.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

src, prefix = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src)
scene = bpy.context.scene
meshes = [o for o in scene.objects if o.type == "MESH"]
if not meshes:
    print("FAIL blender: no mesh imported")
    sys.exit(1)
actions = list(bpy.data.actions)
start, end = (actions[0].frame_range if actions else (1, 1))
frames = [int(start), max(int(round(end)), int(start) + 1)]  # the first and the last frame

# a camera that sees every vertex at both frames
pts = []
for f in frames:
    scene.frame_set(f)
    dg = bpy.context.evaluated_depsgraph_get()
    for o in meshes:
        ev = o.evaluated_get(dg)
        pts += [ev.matrix_world @ v.co for v in ev.to_mesh().vertices]
lo = Vector([min(p[i] for p in pts) for i in range(3)])
hi = Vector([max(p[i] for p in pts) for i in range(3)])
centre, size = (lo + hi) / 2, max((hi - lo).length, 1e-3)
cam = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
scene.collection.objects.link(cam)
cam.location = centre + Vector((0.6, -1.2, 0.8)) * size * 1.6
cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
cam.data.clip_end = size * 20
scene.camera = cam
sun = bpy.data.objects.new("sun", bpy.data.lights.new("sun", "SUN"))
scene.collection.objects.link(sun)
sun.rotation_euler = cam.rotation_euler
world = bpy.data.worlds.new("w")
world.color = (0.05, 0.05, 0.05)
scene.world = world
scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = 4
scene.cycles.use_denoising = False
scene.render.resolution_x, scene.render.resolution_y = 320, 240
scene.render.image_settings.file_format = "PNG"
paths = []
for f in frames:
    scene.frame_set(f)
    scene.render.filepath = f"{prefix}_frame{f}.png"
    bpy.ops.render.render(write_still=True)
    paths.append(scene.render.filepath)
a, b = (bpy.data.images.load(p) for p in paths)
pa, pb = list(a.pixels), list(b.pixels)
bg = pa[0:3]  # a corner: the background
lit = sum(1 for i in range(0, len(pa), 4) if abs(pa[i] - bg[0]) + abs(pa[i + 1] - bg[1]) + abs(pa[i + 2] - bg[2]) > 0.1)
diff = sum(1 for i in range(0, len(pa), 4) if abs(pa[i] - pb[i]) + abs(pa[i + 1] - pb[i + 1]) + abs(pa[i + 2] - pb[i + 2]) > 0.1)
print(f"blender: frames {frames}: model covers {lit} pixels, {diff} pixels differ; {paths[0]} {paths[1]}")
ok = lit > 200 and diff > 100
print(("PASS" if ok else "FAIL") + " blender: the model is visible and moves")
sys.exit(0 if ok else 1)

# The picture of docs/blender.md: the project's own crane example (examples/, not game
# data) imported with the add-on in Blender, headless, and rendered with the Workbench
# engine at one frame of its animation. Run with the add-on installed (docs/blender.md):
#   make blender-addon
#   env PATH=/usr/bin:/bin BLENDER_USER_SCRIPTS=/tmp/s BLENDER_USER_CONFIG=/tmp/c blender -b --factory-startup \
#     -P docs/images/make_blender_shots.py -- dist/ganim_blender.zip docs/images
import os
import sys

import addon_utils
import bpy
from mathutils import Vector

zip_path, outdir = sys.argv[sys.argv.index("--") + 1:][:2]
repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
bpy.ops.preferences.addon_install(filepath=os.path.abspath(zip_path))
addon_utils.enable("ganim_blender", default_set=True)

# picture | file | Argonaut model | frame
SHOTS = [
    ("blender_alamo_crane.png", "examples/crane_wave_00.ala", -1, 20),
]
for png, rel, model, frame in SHOTS:
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    bpy.ops.import_anim.ganim(filepath=os.path.join(repo, rel), argonaut_model=model)
    scene.frame_set(min(frame, scene.frame_end))
    pts = []
    for o in scene.objects:  # the bones where the frame puts them
        if o.type == "ARMATURE":
            pts += [o.matrix_world @ p for b in o.pose.bones for p in (b.head, b.tail)]
    lo = Vector([min(p[i] for p in pts) for i in range(3)])
    hi = Vector([max(p[i] for p in pts) for i in range(3)])
    centre, size = (lo + hi) / 2, max((hi - lo).length, 1e-3)
    cam = bpy.data.objects.new("cam", bpy.data.cameras.new("cam"))
    scene.collection.objects.link(cam)
    cam.location = centre + Vector((1.0, -1.4, 0.7)).normalized() * size * 1.5
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam.data.clip_end = size * 20
    scene.camera = cam
    world = bpy.data.worlds.new("w")
    world.color = (0.3, 0.32, 0.36)
    scene.world = world
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "OBJECT"
    scene.render.resolution_x, scene.render.resolution_y = 480, 320
    scene.render.film_transparent = False
    scene.render.image_settings.color_mode = "RGB"
    scene.render.image_settings.compression = 100
    scene.render.filepath = os.path.join(os.path.abspath(outdir), png)
    bpy.ops.render.render(write_still=True)
    print("wrote", scene.render.filepath)

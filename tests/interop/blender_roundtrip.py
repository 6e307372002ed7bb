# Blender's side of the round trip a modder makes (tests/interop/blender_roundtrip.sh):
# import ganim's glb with Blender's own glTF importer, optionally rotate one bone at one
# frame of one animation as an artist would (pose mode, rotate, insert a keyframe), and
# export the scene with Blender's own glTF exporter.
#   blender -b --factory-startup -P blender_roundtrip.py -- IN.glb OUT.glb FPS [ANIM BONE FRAME DEGREES]
# FPS: the scene's frame rate, set before the import as docs/roundtrip.md tells a user to
# (the clip's own rate, so that every key lands on a whole frame).
# Import: bone_heuristic='BLENDER' (the default, 'TEMPERANCE', turns the root bones).
# Export: every action as its own animation (NLA strips), sampled at every frame, with the
# armature's deform and non-deform bones.
import math
import sys

import bpy
import numpy
from mathutils import Quaternion

# Debian's Blender 3.4 glTF importer still uses numpy.bool, which numpy 1.24 removed.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
src, dst, fps = args[0], args[1], float(args[2])
edit = args[3:7]

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = int(round(fps))
scene.render.fps_base = scene.render.fps / fps
res = bpy.ops.import_scene.gltf(filepath=src, bone_heuristic="BLENDER")
if res != {"FINISHED"}:
    print("FAIL blender: import", res)
    sys.exit(1)
arm = next((o for o in scene.objects if o.type == "ARMATURE"), None)
if arm is None:
    print("FAIL blender: no armature imported")
    sys.exit(1)

if edit:
    anim, bone, frame, degrees = edit[0], edit[1], int(edit[2]), float(edit[3])
    ad = arm.animation_data
    track = next((t for t in ad.nla_tracks if t.name == anim), None)
    if track is None:
        print("FAIL blender: no NLA track", anim, "among", [t.name for t in ad.nla_tracks])
        sys.exit(1)
    action = track.strips[0].action
    # edit the action as a user does: make it the active one, pose, key
    ad.action = action
    for t in ad.nla_tracks:
        t.mute = True
    scene.frame_set(frame)
    pb = arm.pose.bones.get(bone)
    if pb is None:
        print("FAIL blender: no bone", bone)
        sys.exit(1)
    pb.rotation_mode = "QUATERNION"
    before = pb.rotation_quaternion.copy()
    pb.rotation_quaternion = before @ Quaternion((1.0, 0.0, 0.0), math.radians(degrees))
    pb.keyframe_insert("rotation_quaternion", frame=frame, group=bone)
    print("edited", anim, bone, "frame", frame, "from", tuple(before), "to", tuple(pb.rotation_quaternion))
    # back to what the importer made: the action on its NLA track, none active
    ad.action = None
    for t in ad.nla_tracks:
        t.mute = True

res = bpy.ops.export_scene.gltf(
    filepath=dst,
    export_format="GLB",
    export_animations=True,
    export_nla_strips=True,
    export_force_sampling=True,
    export_def_bones=False,
    export_frame_range=False,
    export_optimize_animation_size=False,
    export_current_frame=False,
)
if res != {"FINISHED"}:
    print("FAIL blender: export", res)
    sys.exit(1)
print("exported", dst)

# Makes the Blender fixtures of tests/data/gltf and tests/data/bvh with Debian's Blender
# 3.4.1 (apt-get install blender python3-numpy), run from the repository's root:
#
#   ./build/ganim convert examples/crane_wave_00.ala -o /tmp/crane.glb
#   blender -b --factory-startup --python-exit-code 1 \
#       --python tests/data/gltf/make_blender_fixtures.py -- /tmp/crane.glb tests/data
#
#   gltf/blender_crane.glb     ganim's export of the crane example imported into Blender
#                              (import_shading='SMOOTH': Blender 3.4's default normals
#                              option fails under Debian's numpy 1.24, np.bool) and
#                              exported again with the defaults: Y up, every frame sampled
#                              at Blender's 24 fps, bone rest poses Blender's own
#   gltf/blender_rig_sparse.glb  a rig made here, keys only where they are set (frames 1,
#                              8, 12, 20, 30), LINEAR, CONSTANT (-> STEP) and BEZIER
#                              (-> CUBICSPLINE) curves, exported without sampling; the
#                              armature object is moved, turned and scaled (its node is
#                              not a joint), and no bone is at rest at the first key
#   gltf/blender_rig_baked.glb   the same rig exported with the defaults (sampled)
#   bvh/blender_rig.bvh          the same rig through Blender's BVH exporter
import math
import os
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
crane, data = args[0], args[1]
gltf_dir, bvh_dir = os.path.join(data, "gltf"), os.path.join(data, "bvh")

# ---- 1. ganim's crane through Blender ------------------------------------------------------
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=crane, import_shading="SMOOTH")
bpy.ops.export_scene.gltf(filepath=os.path.join(gltf_dir, "blender_crane.glb"), export_format="GLB")

# ---- 2. a rig made in Blender ----------------------------------------------------------------
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = 24
scene.frame_start = 1
scene.frame_end = 30

rig_data = bpy.data.armatures.new("Rig")
rig = bpy.data.objects.new("Rig", rig_data)
scene.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig
rig.select_set(True)
rig.location = (1.0, 0.5, 0.0)
rig.rotation_euler = (0.0, 0.0, math.radians(30))
rig.scale = (2.0, 2.0, 2.0)

bpy.ops.object.mode_set(mode="EDIT")
eb = rig_data.edit_bones
hips = eb.new("Hips")
hips.head, hips.tail = (0, 0, 1.0), (0, 0, 1.3)
spine = eb.new("Spine")
spine.head, spine.tail, spine.parent, spine.use_connect = (0, 0, 1.3), (0, 0.1, 1.8), hips, True
head = eb.new("Head")
head.head, head.tail, head.parent = (0, 0.1, 1.8), (0, 0.1, 2.1), spine
arm = eb.new("Arm.L")
arm.head, arm.tail, arm.parent, arm.roll = (0.2, 0, 1.7), (0.6, 0, 1.7), spine, math.radians(20)
bpy.ops.object.mode_set(mode="OBJECT")

# a small mesh skinned to every bone, so that the exporter writes a skin
verts, faces, groups = [], [], []
for i, (name, x, z) in enumerate([("Hips", 0, 1.1), ("Spine", 0, 1.5), ("Head", 0, 1.9), ("Arm.L", 0.4, 1.7)]):
    verts += [(x - 0.05, 0, z), (x + 0.05, 0, z), (x, 0.05, z + 0.05)]
    faces.append((3 * i, 3 * i + 1, 3 * i + 2))
    groups.append(name)
mesh = bpy.data.meshes.new("Body")
mesh.from_pydata(verts, [], faces)
body = bpy.data.objects.new("Body", mesh)
scene.collection.objects.link(body)
body.parent = rig
for i, name in enumerate(groups):
    vg = body.vertex_groups.new(name=name)
    vg.add([3 * i, 3 * i + 1, 3 * i + 2], 1.0, "REPLACE")
body.modifiers.new("Armature", "ARMATURE").object = rig

bpy.context.view_layer.objects.active = rig
bpy.ops.object.mode_set(mode="POSE")
pose = rig.pose.bones
for b in pose:
    b.rotation_mode = "QUATERNION"


def quat(axis, degrees):
    h = math.radians(degrees) / 2
    s = math.sin(h)
    return (math.cos(h), axis[0] * s, axis[1] * s, axis[2] * s)


keys = {  # bone: (data path, interpolation, [(frame, value)])
    "Hips": ("location", "LINEAR", [(1, (0.1, 0, 0)), (12, (0.3, 0.2, 0)), (30, (0.0, 0.4, 0.1))]),
    "Spine": ("rotation_quaternion", "BEZIER",
              [(1, quat((1, 0, 0), 20)), (12, quat((0, 1, 0), -35)), (30, quat((0.6, 0, 0.8), 50))]),
    "Head": ("rotation_quaternion", "CONSTANT",
             [(1, quat((0, 0, 1), 15)), (8, quat((0, 0, 1), -25)), (20, quat((1, 0, 0), 30))]),
    "Arm.L": ("rotation_quaternion", "LINEAR", [(1, quat((0, 0, 1), -40)), (30, quat((0, 1, 0), 70))]),
}
for name, (path, interp, frames) in keys.items():
    for frame, value in frames:
        setattr(pose[name], path, value)
        pose[name].keyframe_insert(path, frame=frame)
for fc in rig.animation_data.action.fcurves:
    bone = fc.data_path.split('"')[1]
    for kp in fc.keyframe_points:
        kp.interpolation = keys[bone][1]
rig.animation_data.action.name = "Wave"
bpy.ops.object.mode_set(mode="OBJECT")

bpy.ops.export_scene.gltf(filepath=os.path.join(gltf_dir, "blender_rig_sparse.glb"), export_format="GLB",
                          export_force_sampling=False)
bpy.ops.export_scene.gltf(filepath=os.path.join(gltf_dir, "blender_rig_baked.glb"), export_format="GLB")
bpy.context.view_layer.objects.active = rig
bpy.ops.export_anim.bvh(filepath=os.path.join(bvh_dir, "blender_rig.bvh"), frame_start=1, frame_end=30)
print("FIXTURES WRITTEN")

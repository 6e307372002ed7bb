# Blender's stock glTF importer poses ganim's glb as ganim_clip_sample does.
#   blender -b --factory-startup --python-exit-code 1 -P blender_pose.py -- FILE.glb POSES.json [HEURISTIC]
# POSES.json: tools/pose_world's output for the file the glb was made from. The scene is
# set to the rate the glb records (the scene's extras.ganim.fps, as
# docs/clients.md tells a user to) before the import, with the importer's defaults
# (HEURISTIC: its "Bone Dir", default TEMPERANCE). Every action is played alone
# (its NLA tracks muted) at whole and half-way frames, and each joint's world matrix
# (pose bone in the armature's world, back from Blender's Z up to glTF's Y up) is compared
# with ganim's times the turn C_j the importer gives the bone for its display (below).
#   error = max(|translation difference| / extent, max |3x3 element difference|)
# with extent the largest distance of a joint from the origin in ganim's pose.
# Also what the user sees: ganim's bone mesh as Blender's armature modifier deforms it,
# against ganim's joint matrices applied to the mesh's rest ("mesh": the largest distance,
# as a fraction of the extent).
# Prints one line: RESULT {"whole": e, "half": e, "mesh": e, "worst": {...}}.
import json
import math
import struct
import sys

import bpy
import numpy
from mathutils import Matrix, Quaternion

if not hasattr(numpy, "bool"):  # Debian's Blender 3.4 importer still uses numpy.bool
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
src, poses_file = args[0], args[1]
heuristic = args[2] if len(args) > 2 else "TEMPERANCE"
poses = json.load(open(poses_file))


def glb_read(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"glTF":
        n = struct.unpack_from("<I", data, 12)[0]
        return json.loads(data[20:20 + n]), data[20 + n + 8:]
    return json.loads(data), b""


gltf, gltf_bin = glb_read(src)


def inverse_binds():
    """The skin's inverse bind matrices (the mesh's bind), as mathutils matrices."""
    acc = gltf["accessors"][gltf["skins"][0]["inverseBindMatrices"]]
    view = gltf["bufferViews"][acc["bufferView"]]
    at = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    out = []
    for k in range(acc["count"]):
        m = struct.unpack_from("<16f", gltf_bin, at + 64 * k)
        out.append(Matrix([[m[c * 4 + r] for c in range(4)] for r in range(4)]))
    return out


anims = gltf.get("animations", [])
# the rate ganim records where Blender keeps it: the scene's extras (docs/clients.md)
# (older exports: the first animation's extras)
fps = gltf.get("scenes", [{}])[0].get("extras", {}).get("ganim", {}).get("fps")
if fps is None:
    fps = anims[0].get("extras", {}).get("ganim", {}).get("fps", 24) if anims else 24

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = max(1, int(round(fps)))
scene.render.fps_base = scene.render.fps / fps
if bpy.ops.import_scene.gltf(filepath=src, bone_heuristic=heuristic) != {"FINISHED"}:
    print("FAIL blender: import")
    sys.exit(1)
arm = next((o for o in scene.objects if o.type == "ARMATURE"), None)
if arm is None:
    print("FAIL blender: no armature")
    sys.exit(1)

# glTF (Y up) -> Blender (Z up): (x, y, z) -> (x, -z, y)
A = Matrix(((1, 0, 0, 0), (0, 0, -1, 0), (0, 1, 0, 0), (0, 0, 0, 1)))
Ainv = A.inverted()
names = poses["bones"]
n = len(names)
joints = gltf["skins"][0]["joints"]
node_names = [gltf["nodes"][j].get("name", "") for j in joints]
bones = [arm.pose.bones.get(nm) for nm in node_names]
if any(b is None for b in bones):
    print("FAIL blender: bones missing:", [nm for nm, b in zip(node_names, bones) if b is None][:5])
    sys.exit(1)


def mat_of(flat, j):
    m = flat[16 * j:16 * j + 16]
    return Matrix([[m[c * 4 + r] for c in range(4)] for r in range(4)])


# The importer turns each bone in its rest (Bone Dir) and drops rest scales from the edit
# bones: bone j's matrix in Blender is the glTF node's world matrix times a rotation C_j.
# C_j = (the node's rest world rotation, scales left out)^-1 x (the edit bone's rotation).
turn_inv = [Quaternion((q[3], q[0], q[1], q[2])).to_matrix().transposed()
            for q in (poses["rest_turn"][4 * j:4 * j + 4] for j in range(n))]
fix = []
for j, b in enumerate(bones):
    r = (Ainv @ arm.matrix_world @ b.bone.matrix_local).to_3x3().normalized()
    fix.append((turn_inv[j] @ r).to_4x4())

# What the user sees: ganim's bone mesh (each vertex bound to one joint) as Blender's
# armature modifier deforms it, against ganim's joint matrices applied to the mesh's rest:
# A x world(t) x inverse bind matrix x A^-1 x vertex.
mesh_obj = next((o for o in scene.objects if o.type == "MESH" and o.find_armature() == arm), None)
mesh_rest = []
if mesh_obj is not None:
    joint_of = {nm: j for j, nm in enumerate(node_names)}
    groups = {g.index: g.name for g in mesh_obj.vertex_groups}
    for v in mesh_obj.data.vertices:
        best = max(v.groups, key=lambda e: e.weight, default=None)
        j = joint_of.get(groups.get(best.group)) if best is not None and best.weight > 0.999 else None
        mesh_rest.append((j, mesh_obj.matrix_world @ v.co))
rest_inv_g = inverse_binds() if mesh_rest else []

ad = arm.animation_data
result = {"whole": 0.0, "half": 0.0, "mesh": 0.0, "worst": None, "worst_mesh": None, "animations": 0}
for ai, anim in enumerate(anims):
    ci = anim.get("extras", {}).get("ganim", {}).get("clip_index")
    ref = next((p for p in poses["animations"] if p["clip"] == ci), None)
    name = anim.get("name", "")
    track = next((t for t in ad.nla_tracks if t.name == name), None) if ad else None
    if ref is None or track is None:
        print("FAIL blender: animation", ai, name, "has no pose or no NLA track")
        sys.exit(1)
    for t in ad.nla_tracks:
        t.mute = True
    ad.action = track.strips[0].action
    steps = round((len(ref["world"]) - 1) / max(1, ref["frames"] - 1)) or 1
    for k, w in enumerate(ref["world"]):
        if 2 * (k % steps) != steps and k % steps:
            continue  # whole and half-way frames
        frame = k / steps
        scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))
        extent = 1e-6
        for j in range(n):
            extent = max(extent, math.sqrt(w[16 * j + 12] ** 2 + w[16 * j + 13] ** 2 + w[16 * j + 14] ** 2))
        worst, wj = 0.0, -1
        for j in range(n):
            d_b = Ainv @ arm.matrix_world @ bones[j].matrix
            d_g = mat_of(w, j) @ fix[j]
            e = math.sqrt(sum((d_b[i][3] - d_g[i][3]) ** 2 for i in range(3))) / extent
            for r in range(3):
                for c in range(3):
                    e = max(e, abs(d_b[r][c] - d_g[r][c]))
            if not e <= worst:
                worst, wj = e, j
        if mesh_rest:
            dg = bpy.context.evaluated_depsgraph_get()
            ev = mesh_obj.evaluated_get(dg)
            me = ev.to_mesh()
            deform = [A @ mat_of(w, j) @ rest_inv_g[j] @ Ainv for j in range(n)]
            mesh_err = 0.0
            for i, (j, co) in enumerate(mesh_rest):
                if j is None or i >= len(me.vertices):
                    continue
                got = ev.matrix_world @ me.vertices[i].co
                mesh_err = max(mesh_err, (got - deform[j] @ co).length / extent)
            ev.to_mesh_clear()
            if not mesh_err <= result["mesh"]:
                result["mesh"] = mesh_err
                result["worst_mesh"] = {"error": mesh_err, "animation": name, "frame": frame}
        kind = "whole" if k % steps == 0 else "half"
        if not worst <= result[kind]:
            result[kind] = worst
        if result["worst"] is None or not worst <= result["worst"]["error"]:
            result["worst"] = {"error": worst, "animation": name, "frame": frame, "joint": names[wj]}
    result["animations"] += 1
    ad.action = None
print("RESULT " + json.dumps(result))

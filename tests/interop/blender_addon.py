# The add-on in Blender (tests/interop/blender_addon.sh): installs dist/ganim_blender.zip
# into the throw-away user folder the script was started with, enables it, and for each
# case imports the game file with bpy.ops.import_anim.ganim, checks the armature against
# ganim (bones, one action per animation, fps, frame range, ganim_source, bone positions
# at several frames), exports it untouched with bpy.ops.export_anim.ganim, then rotates
# one bone at one frame as an artist does (pose, rotate, insert a key) and exports again.
# The shell script compares the written game files with the originals.
#   blender -b --factory-startup -P blender_addon.py -- ZIP OUTDIR CASE...
# CASE: path|anim|bone|frame|degrees|model (model: the Argonaut model, or empty)
import math
import os
import sys

import addon_utils
import bpy
from mathutils import Matrix, Quaternion, Vector

args = sys.argv[sys.argv.index("--") + 1:]
zip_path, outdir, cases = args[0], args[1], args[2:]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok:", what, flush=True)
    else:
        failed += 1
        print("FAIL:", what, flush=True)
    return ok


res = bpy.ops.preferences.addon_install(filepath=zip_path)
check(res == {"FINISHED"}, "addon_install " + zip_path)
addon_utils.enable("ganim_blender", default_set=True)
import ganim_blender  # noqa: E402
from ganim_blender import ganim  # noqa: E402
from ganim_blender.trip import _fcurves  # noqa: E402

check(ganim_blender.__file__.startswith(os.environ["BLENDER_USER_SCRIPTS"]),
      f"the add-on runs from the user folder ({ganim_blender.__file__})")
check(hasattr(bpy.ops.import_anim, "ganim") and hasattr(bpy.ops.export_anim, "ganim"), "operators registered")

# Blender's axes from ganim's: the exporter turns the document to glTF's +Y up, Blender's
# importer turns +Y up into its +Z up.
TO_Y_UP = {"y_up": Quaternion(), "z_up": Quaternion((1, 0, 0), -math.pi / 2), "y_down": Quaternion((1, 0, 0), math.pi)}
Y_UP_TO_BLENDER = Matrix(((1, 0, 0), (0, 0, -1), (0, 1, 0)))


def world_heads(doc, clip, frame):
    """Every bone's world position at `frame` by ganim's own sampling, in Blender's axes,
    and whether it is shown (it and its parents visible, no zero scale on the way)."""
    pose, vis = clip.sample_frame(frame, visibility=True)
    bones = doc.skeleton.bones
    mats, shown = [], []
    for i, (r, t, s) in enumerate(pose):
        m = Matrix.Translation(Vector(t)) @ Quaternion((r[3], r[0], r[1], r[2])).to_matrix().to_4x4() @ \
            Matrix.Diagonal(Vector((s[0], s[1], s[2], 1.0)))
        p = bones[i].parent
        mats.append(mats[p] @ m if p >= 0 else m)
        shown.append(vis[i] and min(abs(x) for x in s) > 1e-6 and (p < 0 or shown[p]))
    rot = Y_UP_TO_BLENDER @ TO_Y_UP[doc.axes].to_matrix()
    return [rot @ m.translation for m in mats], shown


def reset():
    bpy.ops.wm.read_homefile(use_empty=True)
    for coll in (bpy.data.actions, bpy.data.armatures, bpy.data.meshes, bpy.data.objects):
        for x in list(coll):
            coll.remove(x)
    if not addon_utils.check("ganim_blender")[1]:
        addon_utils.enable("ganim_blender", default_set=True)


for case in cases:
    path, anim, bone, frame, degrees, model = case.split("|")
    name = os.path.basename(path)
    frame, degrees = int(frame), float(degrees)
    model = int(model) if model else -1
    settings = {"argonaut.model": model} if model >= 0 else None
    reset()
    scene = bpy.context.scene
    res = bpy.ops.import_anim.ganim(filepath=path, argonaut_model=model)
    if not check(res == {"FINISHED"}, f"{name}: import"):
        continue
    arms = [o for o in scene.objects if o.type == "ARMATURE"]
    if not check(len(arms) == 1, f"{name}: one armature ({len(arms)})"):
        continue
    arm = arms[0]
    check(arm.get("ganim_source") == path, f"{name}: ganim_source is the file")
    with ganim.read(path, settings=settings) as doc:
        anims = [c for c in doc.clips if c.kind == "animation"]
        partners = {c.partner.index for c in anims if c.partner is not None}
        shown = [c for c in anims if c.index not in partners]
        check(len(arm.data.bones) == len(doc.skeleton.bones),
              f"{name}: {len(arm.data.bones)} bones, ganim {len(doc.skeleton.bones)}")
        acts = [s.action for t in arm.animation_data.nla_tracks for s in t.strips]
        check(len(acts) == len(shown) == len(set(acts)),
              f"{name}: {len(acts)} actions, one per animation ({len(shown)})")
        fps = scene.render.fps / scene.render.fps_base
        check(abs(fps - anims[0].fps) < 1e-6, f"{name}: scene fps {fps:g}, clip {anims[0].fps:g}")
        check((scene.frame_start, scene.frame_end) == (0, anims[0].frame_count - 1),
              f"{name}: frame range {scene.frame_start}..{scene.frame_end}, clip 0..{anims[0].frame_count - 1}")
        whole = all(abs(k.co[0] - round(k.co[0])) < 1e-6
                    for a in acts for fc in _fcurves(a) for k in fc.keyframe_points)
        check(whole, f"{name}: every key on a whole frame")
        if model >= 0:
            meshes = [o for o in scene.objects if o.type == "MESH" and o.find_armature() == arm and o.vertex_groups]
            check(len(meshes) >= 1 and len(meshes[0].data.vertices) == len(doc.meshes[0]["positions"]),
                  f"{name}: model {model} is a skinned mesh of {len(doc.meshes[0]['positions'])} vertices")
        # the pose at several frames of every animation, bone heads in world space
        bones = [arm.pose.bones[n] for n in arm["ganim_bones"]]
        size = max((h.length for h in world_heads(doc, anims[0], 0)[0]), default=1.0) or 1.0
        worst, where = 0.0, ""
        for clip in shown:
            act = next(a for a in acts if list(a["ganim_clips"])[0] == clip.index)
            arm.animation_data.action = act
            for f in sorted({0, clip.frame_count // 3, clip.frame_count // 2, clip.frame_count - 1}):
                scene.frame_set(f)
                want, vis = world_heads(doc, clip, f)
                if clip.partner is not None:  # the partner's bones move in the same action
                    pw, pv = world_heads(doc, clip.partner, f)
                    moved = {t.bone for t in clip.partner.tracks}
                    want = [pw[i] if i in moved else w for i, w in enumerate(want)]
                for i, pb in enumerate(bones):
                    if not vis[i]:
                        continue
                    d = ((arm.matrix_world @ pb.head) - want[i]).length / size
                    if d > worst:
                        worst, where = d, f"clip {clip.index} frame {f} bone {pb.name}"
        arm.animation_data.action = None
        check(worst < 1e-4, f"{name}: bone positions as ganim samples them (worst {worst:.2e} of the size, {where})")

    # untouched: back as it was
    out = os.path.join(outdir, name + ".untouched")
    res = bpy.ops.export_anim.ganim(filepath=out)
    check(res == {"FINISHED"}, f"{name}: export untouched")

    # a refusal is reported and writes nothing: the original as the output, a file of
    # another game as the original
    for target, into in ((path, ""), (os.path.join(outdir, name + ".refused"), os.path.join(outdir, "other.civ"))):
        try:
            res = bpy.ops.export_anim.ganim(filepath=target, into_filepath=into)
        except RuntimeError as e:  # the operator's error report, as Blender raises it to a script
            res = {"CANCELLED", str(e).strip().splitlines()[-1][:100]}
        check("FINISHED" not in res, f"{name}: export refused ({res})")
    check(not os.path.exists(os.path.join(outdir, name + ".refused")), f"{name}: a refused export writes nothing")

    # one bone turned at one frame
    ad = arm.animation_data
    track = next((t for t in ad.nla_tracks if t.name == anim), None)
    if not check(track is not None, f"{name}: an action for {anim}"):
        continue
    ad.action = track.strips[0].action
    scene.frame_set(frame)
    pb = arm.pose.bones[bone]
    pb.rotation_mode = "QUATERNION"
    pb.rotation_quaternion = pb.rotation_quaternion @ Quaternion((1.0, 0.0, 0.0), math.radians(degrees))
    pb.keyframe_insert("rotation_quaternion", frame=frame, group=bone)
    out = os.path.join(outdir, name + ".edited")
    res = bpy.ops.export_anim.ganim(filepath=out)
    check(res == {"FINISHED"}, f"{name}: export edited")

print(f"blender: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)

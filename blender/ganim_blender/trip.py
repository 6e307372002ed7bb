"""The two trips of the add-on, Blender's side in Blender's own glTF importer and exporter,
the game's side in ganim (the binding carried beside this file).

Import: ganim reads the game file and exports a glb (every animation clip one glTF
animation, named as `ganim convert` names it); Blender's importer reads it with
bone_heuristic='BLENDER' (docs/roundtrip.md: the default turns the root bones) at the
clip's own frame rate, so every key lands on a whole frame. The armature remembers its
source (`ganim_source`), how ganim's bones are named in Blender (`ganim_bones`), and each
action a digest of its F-curves as imported (`ganim_snapshot`).

Export: what changed since the import is what goes back. Blender keeps poses in float32
relative to the rest pose, so a value taken through Blender comes back up to ~1e-4 off
(a large translation): writing every value back would change bytes nobody edited. So the
actions are compared with their digests, channel by channel (a bone's rotation,
translation, scale); Blender's exporter writes the glb, ganim puts it into the original
(`ganim_write_opts.into`: names, axes, rates, quantisation), and of that result only the
channels that changed in Blender replace the original's; everything else keeps the
original's values, so the writer keeps the file's own bytes there. Nothing changed: the
original's bytes.
"""
import array
import hashlib
import json
import os
import re
import shutil
import struct
import tempfile

import bpy

from . import ganim


class Failure(Exception):
    """A refusal with a sentence for Blender's UI."""


SNAPSHOT = "ganim_snapshot"
KINDS = {"rotation_quaternion": "rotation", "rotation_euler": "rotation", "rotation_axis_angle": "rotation",
         "location": "translation", "scale": "scale"}


def _numpy_compat():
    # Debian's Blender 3.4 glTF importer still uses numpy.bool, which numpy 1.24 removed.
    try:
        import numpy
        if "bool" not in numpy.__dict__:
            numpy.bool = bool
    except ImportError:
        pass


def _settings(model):
    return {"argonaut.model": model} if model is not None and model >= 0 else None


def _glb_json(data):
    if len(data) < 20 or data[:4] != b"glTF":
        return {}
    n = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + n].decode("utf-8"))


def _bone_path(data_path):
    """('bone name', 'rotation'|'translation'|'scale') of a pose-bone F-curve, else None."""
    if not data_path.startswith('pose.bones["'):
        return None
    end = data_path.find('"]', 12)
    prop = data_path[end + 3:] if end > 0 else ""
    if prop not in KINDS:
        return None
    return data_path[12:end].replace('\\"', '"').replace("\\\\", "\\"), KINDS[prop]


def _keys(fc):
    """A digest of an F-curve's keys (frames, values, handles, interpolation): what the
    exporter samples it by."""
    kp = fc.keyframe_points
    n = len(kp)
    h = hashlib.sha1(str(n).encode())
    for prop in ("co", "handle_left", "handle_right"):
        a = array.array("f", bytes(8 * n))
        kp.foreach_get(prop, a)
        h.update(a.tobytes())
    h.update(",".join(k.interpolation for k in kp).encode())
    return h.hexdigest()


def _fcurves(action):
    """An action's F-curves: Blender 4.4+ keeps them in layers, strips and channel bags
    (5.0 removed Action.fcurves), earlier ones on the action."""
    layers = getattr(action, "layers", None)
    if layers:
        return [fc for layer in layers for strip in layer.strips for bag in getattr(strip, "channelbags", ())
                for fc in bag.fcurves]
    return list(action.fcurves)


def _op_args(op, **kw):
    """The keyword arguments the operator has (the glTF add-on renames some between
    Blender versions): the others are dropped."""
    props = op.get_rna_type().properties.keys()
    return {k: v for k, v in kw.items() if k in props}


def _fcurve_id(fc):
    return f"{fc.data_path}|{fc.array_index}"


def _snapshot(action):
    # one JSON text: ID property names are limited to 63 characters, bone paths are not
    action[SNAPSHOT] = json.dumps({_fcurve_id(fc): _keys(fc) for fc in _fcurves(action)})


def _changes(action):
    """None when the action is as imported; else a set of (bone name, kind), or True when
    it cannot say (a new action, an F-curve it does not know)."""
    if not isinstance(action.get(SNAPSHOT), str):
        return True
    snap = json.loads(action[SNAPSHOT])
    seen, changed = set(), set()
    for fc in _fcurves(action):
        key = _fcurve_id(fc)
        seen.add(key)
        old = snap.get(key)
        if old is not None and old == _keys(fc):
            continue
        bk = _bone_path(fc.data_path)
        if bk is None:
            return True
        changed.add(bk)
    for key in snap.keys():
        if key not in seen:  # an F-curve was deleted
            bk = _bone_path(key.split("|")[0])
            if bk is None:
                return True
            changed.add(bk)
    return changed or None


def _snap_frames(action):
    """Keys on whole frames: the importer computes time * fps in float, which can land a
    hair off the frame."""
    for fc in _fcurves(action):
        for k in fc.keyframe_points:
            f = round(k.co[0])
            d = f - k.co[0]
            if d and abs(d) < 1e-3:
                k.co[0] = f
                k.handle_left[0] += d
                k.handle_right[0] += d
        fc.update()


def import_file(context, filepath, skeleton_filepath="", argonaut_model=-1):
    _numpy_compat()
    filepath = bpy.path.abspath(filepath)
    skel = bpy.path.abspath(skeleton_filepath) if skeleton_filepath else None
    settings = _settings(argonaut_model)
    notes = []
    try:
        doc = ganim.read(filepath, skeleton=skel, settings=settings)
    except ganim.Error as e:
        raise Failure(f"ganim: {filepath}: {e}") from None
    with doc:
        notes += [f"ganim: {w.message}" for w in doc.warnings]
        if doc.format == "argonaut" and settings is None:
            models = (doc.details() or {}).get("models") or []
            if models:
                fits = "; ".join(f"model {m['index']}: animations {', '.join(map(str, m['fitting_animations']))}"
                                 for m in models if m.get("fitting_animations"))
                notes.append(("INFO", f"ganim: this level holds {len(models)} models ({fits}): choose one as "
                                      "Argonaut model to bring it in as a skinned mesh"))
        anims = [(c.fps, c.frame_count) for c in doc.clips if c.kind == "animation"]
        glb, warns = doc.export_bytes("glb")
        notes += [f"ganim: {w.message}" for w in warns]
    gj = _glb_json(glb)
    scene = context.scene
    if anims:
        fps = anims[0][0]
        scene.render.fps = max(1, int(round(fps)))
        scene.render.fps_base = scene.render.fps / fps
    before_obj = set(bpy.data.objects)
    before_act = set(bpy.data.actions)
    tmpdir = tempfile.mkdtemp(prefix="ganim-")
    try:
        path = os.path.join(tmpdir, os.path.splitext(os.path.basename(filepath))[0] + ".glb")
        with open(path, "wb") as f:
            f.write(glb)
        op = bpy.ops.import_scene.gltf
        res = op(**_op_args(op, filepath=path, bone_heuristic="BLENDER", guess_original_bind_pose=True))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    if res != {"FINISHED"}:
        raise Failure(f"Blender's glTF importer refused ganim's glb of {filepath}")
    arms = [o for o in bpy.data.objects if o not in before_obj and o.type == "ARMATURE"]
    if not arms:
        raise Failure(f"{filepath}: the import made no armature")
    arm = arms[0]
    arm["ganim_source"] = filepath
    if skel:
        arm["ganim_skeleton"] = skel
    if settings:
        arm["ganim_settings"] = json.dumps(settings)
    # ganim's bone i is the skin's joint i: its node's name is the Blender bone's name
    nodes = gj.get("nodes", [])
    joints = gj.get("skins", [{}])[0].get("joints", []) if gj.get("skins") else []
    arm["ganim_bones"] = [nodes[j].get("name", "") for j in joints]
    # each glTF animation: the clips of the document it holds (a clip and its partner)
    clips_of = {}
    for a in gj.get("animations", []):
        ex = (a.get("extras") or {}).get("ganim") or {}
        clips_of[a.get("name", "")] = [c["index"] for c in ex.get("clips", [])] or \
            ([ex["clip_index"]] if "clip_index" in ex else [])
    ad = arm.animation_data
    for act in [a for a in bpy.data.actions if a not in before_act]:
        _snap_frames(act)
        anim = next((t.name for t in (ad.nla_tracks if ad else []) if any(s.action == act for s in t.strips)),
                    act.name)
        act["ganim_animation"] = anim
        act["ganim_clips"] = clips_of.get(anim, [])
        _snapshot(act)
    if anims:
        scene.frame_start = 0
        scene.frame_end = max(0, anims[0][1] - 1)
        scene.frame_set(0)
    return arm, notes


def _armature(context):
    obj = context.active_object
    if obj is not None and obj.type != "ARMATURE" and obj.parent is not None and obj.parent.type == "ARMATURE":
        obj = obj.parent
    if obj is None or obj.type != "ARMATURE":
        cands = [o for o in context.scene.objects if o.type == "ARMATURE" and "ganim_source" in o]
        if len(cands) != 1:
            raise Failure("select the armature to export (the one the import made)")
        obj = cands[0]
    return obj


def source_of(context):
    """The game file the selected armature was imported from, or None."""
    return _armature(context).get("ganim_source")


def _actions(arm):
    ad = arm.animation_data
    if ad is None:
        return []
    acts = [s.action for t in ad.nla_tracks for s in t.strips if s.action is not None]
    if ad.action is not None and ad.action not in acts:
        acts.append(ad.action)
    return acts


def _blender_glb(context, arm, path):
    """The armature and its actions through Blender's own glTF exporter (docs/roundtrip.md's
    settings): every action its own animation named after its NLA track, every frame sampled."""
    ad = arm.animation_data
    active = ad.action if ad else None
    on_track = ad is not None and any(s.action == active for t in ad.nla_tracks for s in t.strips)
    sel = {o: o.select_get() for o in context.view_layer.objects}
    try:
        if on_track:
            ad.action = None  # the exporter takes it from its NLA track
        for o in context.view_layer.objects:
            o.select_set(o == arm or o.parent == arm)
        # one animation per NLA track, named after it: export_nla_strips in Blender 3.4,
        # export_animation_mode='NLA_TRACKS' from 3.6 on
        op = bpy.ops.export_scene.gltf
        res = op(**_op_args(op, filepath=path, export_format="GLB", use_selection=True, export_yup=True,
                            export_animations=True, export_nla_strips=True, export_animation_mode="NLA_TRACKS",
                            export_force_sampling=True, export_def_bones=False, export_frame_range=False,
                            export_current_frame=False, export_optimize_animation_size=False))
    finally:
        if on_track:
            ad.action = active
        for o, s in sel.items():
            o.select_set(s)
    if res != {"FINISHED"}:
        raise Failure("Blender's glTF exporter failed")


MOVES = re.compile(r"clip (\d+) .*: the (rotation|translation|scale) of bone '(.*)' moves in the input")


def _relevant(warnings, changed, bones, doc):
    """The warnings of putting Blender's glb into the original that concern what changed:
    the float noise of unchanged channels "moves" too, and is not written anyway."""
    names = [b.name for b in doc.skeleton.bones] if doc.skeleton else []
    wanted = set()
    for act, c in changed.items():
        for ci in act.get("ganim_clips", []):
            for bname, kind in c:
                if bname in bones and bones.index(bname) < len(names):
                    wanted.add((ci, kind, names[bones.index(bname)]))
    out = []
    for w in warnings:
        m = MOVES.search(w.message)
        if m is None or (int(m.group(1)), m.group(2), m.group(3)) in wanted:
            out.append(w)
    return out


def export_file(context, filepath, into_filepath=""):
    filepath = bpy.path.abspath(filepath)
    arm = _armature(context)
    source = arm.get("ganim_source")
    into = bpy.path.abspath(into_filepath) if into_filepath else source
    if not into:
        raise Failure(f"{arm.name} was not imported by ganim: give the original game file (Into)")
    if os.path.exists(filepath) and os.path.exists(into) and os.path.samefile(filepath, into):
        raise Failure(f"{filepath}: will not write over the original; choose another file name")
    skel = arm.get("ganim_skeleton")
    settings = json.loads(arm["ganim_settings"]) if "ganim_settings" in arm else None
    same = source is not None and os.path.exists(source) and os.path.exists(into) and os.path.samefile(into, source)
    bones = list(arm.get("ganim_bones", []))
    changed = {}
    for act in _actions(arm):
        c = _changes(act) if same else True
        if c is not None:
            changed[act] = c
    notes = []
    if not changed:
        shutil.copyfile(into, filepath)
        return ["ganim: no action changed since the import: the original's bytes were written"]
    try:
        orig = ganim.read(into, skeleton=skel, settings=settings)
    except ganim.Error as e:
        raise Failure(f"ganim: {into}: {e}") from None
    tmpdir = tempfile.mkdtemp(prefix="ganim-")
    try:
        glb = os.path.join(tmpdir, "blender.glb")
        _blender_glb(context, arm, glb)
        try:
            with ganim.read(glb) as edit:
                data, warns = edit.write_bytes(into=orig)
            into_warnings = warns
            result = ganim.read_bytes(data, skeleton=orig if orig.skeleton else None, format=orig.format,
                                      settings=settings, name=os.path.basename(into))
        except ganim.Error as e:
            raise Failure(f"ganim: {e}") from None
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    try:
        with result, ganim.read(into, skeleton=skel, settings=settings) as final:
            # a bone the import did not name (renamed in Blender), an action that names no
            # clip: the add-on cannot say which channels changed
            whole = [act for act, c in changed.items()
                     if c is True or not list(act.get("ganim_clips", [])) or any(n not in bones for n, _ in c)]
            if whole or len(result.clips) != len(final.clips):
                # ganim cannot tell which clips: what ganim made of Blender's actions, whole
                out, warns = data, []
            else:
                for act, c in changed.items():
                    per_bone = {}
                    for name, kind in c:
                        per_bone.setdefault(bones.index(name), set()).add(kind)
                    for ci in act["ganim_clips"]:
                        final.put_clip(ci, result, channels=per_bone)
                out, warns = final.write_bytes()
                into_warnings = _relevant(into_warnings, changed, bones, final)
            notes += [f"ganim: {w.message}" for w in into_warnings + warns]
    except ganim.Error as e:
        raise Failure(f"ganim: {e}") from None
    finally:
        orig.close()
    with open(filepath, "wb") as f:
        f.write(out)
    return notes

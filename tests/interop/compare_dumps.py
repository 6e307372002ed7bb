#!/usr/bin/env python3
"""Compare the animation values of two `ganim dump` files of the same game file.

    compare_dumps.py ORIGINAL.json RESULT.json [--edit CLIP BONE FRAME] [--tol T] [--edit-min D]

Every clip of ORIGINAL is compared with the clip of RESULT at the same index: kind, name,
frame count, and then every channel of every bone, frame by frame (a constant channel is
its value at every frame, a keyed one is compared at its keys, an absent one is the
bone's rest value). Rotations are compared as rotations (q and -q are the same), as the
largest component difference after the sign is matched.

With --edit, the rotation of bone BONE (name or index) at frame FRAME of clip CLIP (name or
index) is expected to differ by at least --edit-min (default 0.01) and every other value
by at most --tol (default 1e-5); without it, nothing may differ by more than --tol.
Prints one line per finding and a closing 'N passed, N failed' line; exits 1 on failure.
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def rest_value(doc, bone, kind):
    bones = doc["skeleton"]["bones"] if doc.get("skeleton") else []
    rest = bones[bone]["rest"] if bone < len(bones) else None
    if rest is None:
        return [0, 0, 0, 1] if kind == "rotation" else ([1, 1, 1] if kind == "scale" else [0, 0, 0])
    return rest[kind]


def expand(doc, track, kind, frames):
    """The channel's value at each frame, or None where the channel does not say (keyed, between keys)."""
    ch = track[kind] if track else {"kind": "absent"}
    k = ch["kind"]
    if k == "absent":
        return [rest_value(doc, track["bone"], kind)] * frames if track else None
    if k == "constant":
        return [ch["values"][0]] * frames
    if k == "per_frame":
        return list(ch["values"])
    out = [None] * frames
    for t, v in zip(ch["times"], ch["values"]):
        if float(t).is_integer() and 0 <= int(t) < frames:
            out[int(t)] = v
    return out


def diff(kind, a, b):
    if kind == "rotation":
        d1 = max(abs(x - y) for x, y in zip(a, b))
        d2 = max(abs(x + y) for x, y in zip(a, b))
        return min(d1, d2)
    return max(abs(x - y) for x, y in zip(a, b))


def find(items, spec, key="name"):
    for i, it in enumerate(items):
        if str(i) == spec or it.get(key) == spec:
            return i
    raise SystemExit(f"compare_dumps: no '{spec}' among {[it.get(key) for it in items]}")


def main():
    args = sys.argv[1:]
    tol, edit_min, edit = 1e-5, 0.01, None
    if "--tol" in args:
        i = args.index("--tol"); tol = float(args[i + 1]); del args[i:i + 2]
    if "--edit-min" in args:
        i = args.index("--edit-min"); edit_min = float(args[i + 1]); del args[i:i + 2]
    if "--edit" in args:
        i = args.index("--edit"); edit = args[i + 1:i + 4]; del args[i:i + 4]
    a, b = load(args[0]), load(args[1])
    passed = failed = 0

    def fail(msg):
        nonlocal failed
        failed += 1
        print("FAIL:", msg)

    if len(a["clips"]) != len(b["clips"]):
        fail(f"{len(a['clips'])} clips became {len(b['clips'])}")
    bones_a = a["skeleton"]["bones"] if a.get("skeleton") else []
    edit_at = None
    if edit:
        ci = find(a["clips"], edit[0])
        bi = find(bones_a, edit[1])
        edit_at = (ci, bi, int(edit[2]))
    edit_seen = 0.0
    for ci, (ca, cb) in enumerate(zip(a["clips"], b["clips"])):
        for key in ("kind", "frame_count"):
            if ca[key] != cb[key]:
                fail(f"clip {ci}: {key} {ca[key]} became {cb[key]}")
        if ca["kind"] != "animation" or cb["kind"] != "animation":
            if ca.get("opaque_hex") != cb.get("opaque_hex"):
                fail(f"clip {ci}: the opaque bytes changed")
            continue
        frames = min(ca["frame_count"], cb["frame_count"])
        ta = {t["bone"]: t for t in ca["tracks"]}
        tb = {t["bone"]: t for t in cb["tracks"]}
        if set(ta) != set(tb):
            fail(f"clip {ci}: the animated bones changed: {sorted(set(ta) ^ set(tb))}")
        worst = (0.0, None)
        for bone in sorted(set(ta) | set(tb)):
            for kind in ("rotation", "translation", "scale"):
                va = expand(a, ta.get(bone) or {"bone": bone, kind: {"kind": "absent"}}, kind, frames)
                vb = expand(b, tb.get(bone) or {"bone": bone, kind: {"kind": "absent"}}, kind, frames)
                if va is None or vb is None:
                    continue
                for f in range(frames):
                    if va[f] is None or vb[f] is None:
                        continue
                    d = diff(kind, va[f], vb[f])
                    if edit_at == (ci, bone, f) and kind == "rotation":
                        edit_seen = d
                        continue
                    if d > worst[0]:
                        worst = (d, f"clip {ci} bone {bone} ({bones_a[bone]['name'] if bone < len(bones_a) else '?'}) {kind} frame {f}")
        if worst[0] > tol:
            fail(f"{worst[1]}: differs by {worst[0]:.3g} (> {tol:g})")
        else:
            passed += 1
    if edit_at:
        if edit_seen < edit_min:
            fail(f"the edit (clip {edit_at[0]} bone {edit_at[1]} frame {edit_at[2]}) did not land: {edit_seen:.3g}")
        else:
            print(f"the edit landed: rotation differs by {edit_seen:.4f} at clip {edit_at[0]} bone {edit_at[1]} frame {edit_at[2]}")
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

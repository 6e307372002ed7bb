"""The Python binding (python/ganim) against the command line's own output.

    GANIM_CLI=build/ganim [GANIM_LIBRARY=build/libganim.so] python3 -m unittest discover -s tests/python

Every readable family: the document the binding reads is the one `ganim dump` prints
(format, bones, rest poses, clips, every channel value, the format's details), clip.sample() at every frame is
the dump's per-frame value, the binding's exports and writes are the CLI's bytes, `into`
gives what `ganim convert --into` gives, errors carry the CLI's sentence and byte offset,
every truncation of a file raises ganim.Error (never crashes), and a document built from
Python lists is written and read back with its numbers. The project's fixtures
(tests/data) always run; the real samples run from $GANIM_TESTDATA (or the folder next to
the repository) and are skipped, and noted in $GANIM_SKIP_LOG, when absent, unless
GANIM_TESTDATA is set or CI=true.
"""
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))
import ganim  # noqa: E402

CLI = os.environ.get("GANIM_CLI") or os.path.join(REPO, "build", "ganim")
DATA = os.environ.get("GANIM_TESTDATA") or os.environ.get("GANIM_TESTDATA_DEFAULT") or \
    os.path.join(REPO, "..", "shared", "testdata")
FIXTURES = os.path.join(REPO, "tests", "data")

# one file or more of every family: (path under the test data, read settings)
SAMPLES = [
    ("ff7/humanoid_bkey0.da", None),
    ("alamo/VCCo_IPV1_D_DIE_00.ALA", None),
    ("alamo/BM_BERTH_D_DIE_00.ala", None),
    ("acl/short_f16_r30_b33.v0.civ", None),
    ("acl/short_f16_r30_b33.civ", None),
    ("acl/acl20_walk_f100_r30_b52.acl", None),
    ("argonaut/hp_level.wad", None),
    ("argonaut/hp_level.wad", {"argonaut.model": 1}),
    ("argonaut/croc2_level.wad", None),
    ("alamo/BM_BERTH_D.ALO", None),
    ("ff7/humanoid_bkey0.aa", None),
    ("ff7/edge_frames.da", None),
]
FIXTURE_FILES = [
    ("ff7/fixture_pack.da", None),
    ("acl/fixture.v0.civ", None),
    ("acl/synth_metadata_v10.civ", None),
    ("argonaut/fixture_hp.wad", None),
    ("argonaut/fixture_croc2.wad", None),
    ("argonaut/FIXTURE.DIR:LEVEL1.WAD", None),
    ("ff7/fixture_pack.aa", None),
    ("gltf/blender_rig_baked.glb", None),
    ("bvh/cmu_style.bvh", None),
]


def cli(*args, check=True):
    p = subprocess.run([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and p.returncode != 0:
        raise AssertionError(f"ganim {' '.join(args)}: {p.stderr.decode()}")
    return p


def cli_opts(settings):
    out = []
    for k, v in (settings or {}).items():
        out += ["-O", f"{k}={v}"]
    return out


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def real_samples(test):
    if os.path.isdir(DATA):
        return [(os.path.join(DATA, p), s) for p, s in SAMPLES]
    if os.environ.get("GANIM_TESTDATA") or os.environ.get("CI") == "true":
        test.fail(f"the test data '{DATA}' is missing")
    log = os.environ.get("GANIM_SKIP_LOG")
    if log:
        with open(log, "a") as f:
            f.write("python binding on the real samples (the fixtures ran)\n")
    return []


class Binding(unittest.TestCase):
    def files(self):
        return [(os.path.join(FIXTURES, p), s) for p, s in FIXTURE_FILES] + real_samples(self)

    def test_version(self):
        with open(os.path.join(REPO, "include", "ganim.h")) as f:
            want = re.search(r'#define GANIM_VERSION_STRING "(.*)"', f.read()).group(1)
        self.assertEqual(ganim.version(), want)
        names = {f["name"]: f for f in ganim.formats()}
        self.assertTrue(names["alamo-ala"]["write"])
        self.assertIn(".ala", names["alamo-ala"]["extensions"])

    def test_documents_are_the_dump(self):
        for path, settings in self.files():
            with self.subTest(path=path, settings=settings):
                dump = json.loads(cli("dump", path, *cli_opts(settings)).stdout)
                with ganim.read(path, settings=settings) as doc:
                    self.assertEqual(doc.format, dump["format"])
                    self.assertEqual(doc.axes.replace("_", "-"), dump["axes"])
                    bones = doc.skeleton.bones
                    self.assertEqual(len(bones), len(dump["skeleton"]["bones"]))
                    for b, d in zip(bones, dump["skeleton"]["bones"]):
                        self.assertEqual((b.name, b.parent), (d["name"], d["parent"]))
                        self.assertEqual(b.rest, tuple(tuple(f32(x) for x in d["rest"][k])
                                                       for k in ("rotation", "translation", "scale")))
                    self.assertEqual(doc.details(full=True), dump.get("native"))
                    info = json.loads(cli("info", "--json", path, *cli_opts(settings)).stdout)
                    self.assertEqual(doc.details(), info.get("native"))
                    self.assertEqual(len(doc.clips), len(dump["clips"]))
                    for clip, d in zip(doc.clips, dump["clips"]):
                        self.check_clip(doc, clip, d)
                        self.assertEqual(doc.details(clip=clip, full=True), d.get("native"))
                    self.assertEqual([(w.message, w.offset) for w in doc.warnings],
                                     [(w["message"], w.get("offset")) for w in dump.get("warnings", [])])

    def check_clip(self, doc, clip, d):
        self.assertEqual((clip.name, clip.kind, clip.frame_count), (d["name"], d["kind"], d["frame_count"]))
        if clip.kind != "animation":
            return
        self.assertEqual(clip.fps, d["fps"])
        self.assertEqual(clip.partner.index if clip.partner else None, d.get("partner"))
        tracks = clip.tracks
        self.assertEqual(len(tracks), len(d["tracks"]))
        rest = [b.rest for b in doc.skeleton.bones]
        frames = {f: clip.sample_frame(f) for f in range(clip.frame_count)}
        for t, dt in zip(tracks, d["tracks"]):
            self.assertEqual(t.bone, dt["bone"])
            for k, comp in (("rotation", 0), ("translation", 1), ("scale", 2)):
                ch, dc = getattr(t, k), dt.get(k, {"kind": "absent"})
                if dc["kind"] == "absent":
                    self.assertIsNone(ch)
                    want = [rest[t.bone][comp]] * clip.frame_count
                elif dc["kind"] == "constant":
                    self.assertEqual(ch, tuple(f32(x) for x in dc["values"][0]))
                    want = [ch] * clip.frame_count
                elif dc["kind"] == "per_frame":
                    want = [tuple(f32(x) for x in v) for v in dc["values"]]
                    self.assertEqual(ch, want)
                else:  # keyed: compare at the keys that fall on whole frames
                    self.assertEqual(sorted(ch), [f32(x) for x in dc["times"]])
                    want = [None] * clip.frame_count
                    for tm, v in zip(dc["times"], dc["values"]):
                        if float(tm).is_integer() and 0 <= tm < clip.frame_count:
                            want[int(tm)] = tuple(f32(x) for x in v)
                for f, w in enumerate(want):
                    if w is None:
                        continue
                    got = frames[f][t.bone][comp]
                    if comp == 0:  # as rotations: a file's quaternions are unit to its precision only
                        n = math.sqrt(sum(x * x for x in w)) * (1 if sum(a * b for a, b in zip(got, w)) >= 0 else -1)
                        w = tuple(x / n for x in w)
                        n = math.sqrt(sum(x * x for x in got))
                        got = tuple(x / n for x in got)
                    # frame f is sampled at f / fps seconds: a float32 rounding of the value
                    tol = 2e-6 + 2.5e-7 * max(abs(x) for x in w)
                    self.assertLess(max(abs(a - b) for a, b in zip(got, w)), tol,
                                    f"clip {clip.index} bone {t.bone} {k} frame {f}: {got} != {w}")

    def test_exports_and_writes_are_the_cli_bytes(self):
        with tempfile.TemporaryDirectory() as tmp:
            for path, settings in self.files():
                with self.subTest(path=path, settings=settings), ganim.read(path, settings=settings) as doc:
                    opts = cli_opts(settings)
                    for ext in ("glb", "bvh", "json"):
                        out = os.path.join(tmp, "cli." + ext)
                        if cli("convert", path, *opts, "-o", out, "--force", check=False).returncode != 0:
                            self.assertRaises(ganim.Error, doc.export, os.path.join(tmp, "py." + ext))
                            continue
                        stem = os.path.splitext(os.path.basename(path))[0]
                        mine = os.path.join(tmp, stem + "." + ext)
                        doc.export(mine)
                        with open(out, "rb") as a, open(mine, "rb") as b:
                            self.assertEqual(a.read(), b.read(), f"{ext} of {path}")
                    fmt = [f for f in ganim.formats() if f["name"] == doc.format][0]
                    if not fmt["write"]:
                        continue
                    ext = os.path.splitext(path)[1]
                    out = os.path.join(tmp, "cli" + ext)
                    cli("convert", path, *opts, "-o", out, "--force")
                    data, _ = doc.write_bytes()
                    with open(out, "rb") as a:
                        self.assertEqual(a.read(), data, f"write of {path}")
                    if not doc.clips:
                        continue
                    # the glb back into the original, as `ganim convert x.glb --into` does it
                    glb = os.path.join(tmp, "trip.glb")
                    doc.export(glb)
                    out2 = os.path.join(tmp, "into" + ext)
                    cli("convert", glb, "--into", path, *opts, "-o", out2, "--force")
                    with ganim.read(glb) as edit:
                        data, _ = edit.write_bytes(into=doc)
                    with open(out2, "rb") as a:
                        self.assertEqual(a.read(), data, f"--into of {path}")

    def test_errors_carry_the_cli_sentence_and_offset(self):
        src = os.path.join(FIXTURES, "ff7", "fixture_pack.da")
        with open(src, "rb") as f:
            data = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            cut = os.path.join(tmp, "cut.da")
            with open(cut, "wb") as f:
                f.write(data[:100])
            p = cli("info", cut, "--no-companion", check=False)
            m = re.search(r"cut\.da: (.*) \(at byte 0x([0-9a-f]+)\)", p.stderr.decode())
            self.assertIsNotNone(m, p.stderr)
            with self.assertRaises(ganim.Error) as e:
                ganim.read(cut, companion=False)
            self.assertEqual(e.exception.message, m.group(1))
            self.assertEqual(e.exception.offset, int(m.group(2), 16))
            self.assertEqual(e.exception.code, "truncated input")
            with self.assertRaises(ganim.Error) as e:
                ganim.read(os.path.join(tmp, "missing.ala"))
            self.assertEqual(e.exception.offset, None)
            self.assertRaises(ganim.Error, ganim.read_bytes, b"not an animation at all")

    def test_every_truncation_raises_or_reads(self):
        for rel in ("ff7/fixture_pack.da", "acl/fixture.v0.civ", "argonaut/fixture_hp.wad"):
            with open(os.path.join(FIXTURES, rel), "rb") as f:
                data = f.read()
            errors = 0
            for n in range(len(data)):
                try:
                    with ganim.read_bytes(data[:n], name=os.path.basename(rel)) as doc:
                        for c in doc.clips:
                            if c.kind == "animation" and doc.skeleton:
                                c.sample(c.duration / 2)
                except ganim.Error as e:
                    errors += 1
                    self.assertTrue(e.message)
            self.assertGreater(errors, len(data) // 2, rel)

    def test_hostile_files_raise_or_read(self):
        """The shared hostile samples, and every sample with bytes overwritten at a stride:
        ganim.Error or a document that samples and exports; never a crash."""
        files = [os.path.join(FIXTURES, p) for p, _ in FIXTURE_FILES if ":" not in p]
        hostile = os.path.join(DATA, "hostile")
        if os.path.isdir(hostile):
            files += [os.path.join(hostile, n) for n in sorted(os.listdir(hostile)) if not n.endswith(".md")]
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            variants = [data] + [data[:i] + b"\xff\x7f\x00\x80" + data[i + 4:] for i in range(0, len(data), 61)]
            for v in variants:
                try:
                    with ganim.read_bytes(v, name=os.path.basename(path)) as doc:
                        for c in doc.clips:
                            if c.kind == "animation" and doc.skeleton:
                                c.sample(c.duration / 3)
                        doc.export_bytes("glb")
                except ganim.Error as e:
                    self.assertTrue(e.message, path)

    def test_build_a_document(self):
        # a two-bone arm: the elbow turns 90 degrees about Z over 3 frames at 30 fps
        half = math.sqrt(0.5)
        rot = [(0.0, 0.0, 0.0, 1.0), (0.0, 0.0, math.sin(math.pi / 8), math.cos(math.pi / 8)),
               (0.0, 0.0, half, half)]
        with ganim.new(bones=[("shoulder", -1), ganim.Bone("elbow", 0, ((0, 0, 0, 1), (0, 10, 0), (1, 1, 1)))],
                       clips=[{"name": "bend", "fps": 30, "frame_count": 3,
                               "tracks": [{"bone": 1, "rotation": rot, "translation": (0.0, 10.0, 0.0)}]}],
                       axes="z_up") as doc:
            self.assertEqual([b.name for b in doc.skeleton.bones], ["shoulder", "elbow"])
            clip = doc.clips[0]
            self.assertEqual((clip.name, clip.fps, clip.frame_count, clip.duration), ("bend", 30.0, 3, 2 / 30))
            pose = clip.sample(1 / 60)  # halfway from frame 0 to 1: slerp, a turn of 22.5 / 2 degrees
            want = math.sin(math.pi / 16)
            self.assertAlmostEqual(pose[1][0][2], want, places=6)
            self.assertEqual(pose[1][1], (0.0, 10.0, 0.0))
            self.assertEqual(pose[0], ((0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0), (1.0, 1.0, 1.0)))
            data, _ = doc.write_bytes("alamo-ala")
            with ganim.read_bytes(data, skeleton=doc) as back:
                self.assertEqual(back.format, "alamo-ala")
                self.assertEqual(back.clips[0].frame_count, 3)
                got = back.clips[0].sample_frame(2)[1][0]
                self.assertLess(max(abs(a - b) for a, b in zip(got, rot[2])), 1e-4)
            doc.set_channel(0, 0, "rotation", {0: (0.0, 0.0, 0.0, 1.0), 2: (0.0, 0.0, half, half)})
            self.assertEqual(sorted(clip.tracks[0].rotation), [0.0, 2.0])
            self.assertAlmostEqual(clip.sample_frame(1)[1][0][2], math.sin(math.pi / 8), places=6)
            js = json.loads(doc.export_bytes("json")[0])
            self.assertEqual(js["clips"][0]["tracks"][0]["rotation"]["kind"], "keyed")
            # what the library refuses raises, it does not crash
            with self.assertRaises(ganim.Error):
                doc.add_track(0, {"bone": 0, "rotation": [(0, 0, 0, 1)] * 2})  # 2 values for 3 frames
            doc.add_track(0, {"bone": 0, "rotation": (0.0, 0.0, 0.0, 2.0)})  # not a unit quaternion
            with self.assertRaises(ganim.Error) as e:
                doc.export_bytes("glb")
            self.assertIn("unit", e.exception.message)

    def test_pip_install_offline(self):
        """pip install ./python with no index: the wheel holds the package and the library."""
        try:
            import pip  # noqa: F401
        except ImportError:
            self.skipTest("no pip in this Python")
        import shutil
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "python")
            shutil.copytree(os.path.join(REPO, "python"), src,
                            ignore=shutil.ignore_patterns("__pycache__", "libganim.so*", "*.dll", "build"))
            shutil.copy(ganim.library_path, os.path.join(src, "ganim", "libganim.so"))
            site = os.path.join(tmp, "site")
            p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--quiet",
                                "--target", site, src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(p.returncode, 0, p.stdout.decode())
            env = {k: v for k, v in os.environ.items() if k not in ("GANIM_LIBRARY", "PYTHONPATH")}
            env["PYTHONPATH"] = site
            p = subprocess.run([sys.executable, "-c", "import ganim; d = ganim.read(%r); "
                                "print(ganim.library_path, d.format, len(d.clips))"
                                % os.path.join(FIXTURES, "acl", "fixture.v0.civ")],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stdout.decode())
            self.assertEqual(p.stdout.decode().split(),
                             [os.path.join(site, "ganim", "libganim.so"), "civ7", "1"])

    def test_put_clip_takes_only_the_channels_asked(self):
        path = os.path.join(FIXTURES, "acl", "fixture.v0.civ")
        with ganim.read(path) as a, ganim.read(path) as b:
            orig = a.clips[0].tracks
            t = orig[1]
            n = a.clips[0].frame_count
            turned = [(0.0, 0.0, math.sin(0.1 * f), math.cos(0.1 * f)) for f in range(n)]
            moved = [(float(f), 2.0, 3.0) for f in range(n)]
            b.set_channel(0, 1, "rotation", turned)
            b.set_channel(0, 1, "translation", moved)
            a.put_clip(0, b, channels={t.bone: {"rotation"}})
            got = a.clips[0].tracks
            self.assertEqual(got[1].rotation, [tuple(f32(x) for x in q) for q in turned])
            self.assertEqual(got[1].translation, t.translation)  # not asked: the original's
            for g, o in zip(got[:1] + got[2:], orig[:1] + orig[2:]):
                self.assertEqual((g.rotation, g.translation, g.scale), (o.rotation, o.translation, o.scale))
            a.put_clip(0, b)  # whole
            self.assertEqual(a.clips[0].tracks[1].translation, [tuple(f32(x) for x in v) for v in moved])
            data_a, _ = a.write_bytes()
            data_b, _ = b.write_bytes()
            self.assertEqual(data_a, data_b)
            with self.assertRaises(ganim.Error):
                a.put_clip(5, b)

    def test_skeleton_given(self):
        """skeleton= (a path or a Document) as the tool's --skeleton; companion=False reads alone."""
        da, aa = os.path.join(FIXTURES, "ff7", "fixture_pack.da"), os.path.join(FIXTURES, "ff7", "fixture_pack.aa")
        want = json.loads(cli("dump", da, "--skeleton", aa).stdout)
        for skel in (aa, ganim.read(aa)):
            with ganim.read(da, skeleton=skel, companion=False) as doc:
                self.assertEqual([(b.name, b.parent) for b in doc.skeleton.bones],
                                 [(b["name"], b["parent"]) for b in want["skeleton"]["bones"]])
                self.assertIsNone(doc.skeleton.file)
        alone = json.loads(cli("dump", da, "--no-companion").stdout)
        with ganim.read(da, companion=False) as doc:
            self.assertEqual([b.name for b in doc.skeleton.bones], [b["name"] for b in alone["skeleton"]["bones"]])
        with ganim.read(da) as doc:  # the companion found beside it
            self.assertEqual(os.path.basename(doc.skeleton.file), "fixture_pack.aa")
        with self.assertRaises(ganim.Error):  # an animation is no skeleton file
            ganim.read(da, skeleton=os.path.join(FIXTURES, "acl", "fixture.v0.civ"))

    def test_no_output_replaces_an_input(self):
        import shutil
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "a.civ")
            shutil.copy(os.path.join(FIXTURES, "acl", "fixture.v0.civ"), src)
            with open(src, "rb") as f:
                before = f.read()
            with ganim.read(src) as doc:
                self.assertRaises(ganim.Error, doc.write, src)
                self.assertRaises(ganim.Error, doc.export, src)
                glb = os.path.join(tmp, "a.glb")
                doc.export(glb)
                with ganim.read(glb) as edit:
                    self.assertRaises(ganim.Error, edit.write, src, into=src)
                    self.assertRaises(ganim.Error, edit.write, src, into=doc)
                    edit.write(os.path.join(tmp, "b.civ"), into=doc)
            with open(src, "rb") as f:
                self.assertEqual(f.read(), before)
            with open(os.path.join(tmp, "b.civ"), "rb") as f:
                self.assertEqual(f.read(), before)

    def test_closed_documents_raise(self):
        doc = ganim.read(os.path.join(FIXTURES, "acl", "fixture.v0.civ"))
        clip = doc.clips[0]
        doc.close()
        self.assertRaises(ganim.Error, lambda: clip.fps)
        self.assertRaises(ganim.Error, lambda: doc.format)
        doc.close()  # twice is harmless


if __name__ == "__main__":
    unittest.main()

"""ganim for Python: read, convert and re-encode skeletal animations from game files.

A thin, Pythonic layer over libganim's C ABI (ctypes: no compiled extension, so one
package serves every Python, Blender's included). docs/python.md documents it.

    import ganim
    with ganim.read("BM_BERTH_D_DIE_00.ala") as doc:   # the .ALO is found beside it
        print(doc.format, [b.name for b in doc.skeleton.bones])
        pose = doc.clips[0].sample(0.5)                 # per bone: (rotation, translation, scale)
        doc.export("berth.glb")

Every failure raises ganim.Error (its .code, .offset and message are the library's).
"""
import ctypes
import json
import os

from . import _native as N

_lib, library_path = N.load()

__all__ = ["Error", "Document", "Skeleton", "Bone", "Clip", "Warning", "read", "read_bytes", "new", "version",
           "formats", "library_path"]

NO_OFFSET = 2**64 - 1
_KINDS = {0: "animation", 1: "opaque"}
_AXES = ["y_up", "z_up", "y_down"]
_CHANNEL_TARGETS = {"rotation": 0, "translation": 1, "scale": 2}
_WARN_CODES = ["other", "inconsistent", "repaired", "extra_bytes", "layout", "checksum", "skeleton", "companion",
               "ignored", "export_loss"]


class Error(Exception):
    """A failure of the library: `code` (a short name such as 'truncated input'), `offset`
    (the byte offset in the input where it happened, or None) and the library's sentence."""

    def __init__(self, message, code=None, offset=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.offset = offset


class Warning(tuple):  # noqa: A001 (ganim.Warning, as the library names them)
    """A recoverable oddity: (message, offset, code); offset None when the format has none."""
    __slots__ = ()

    def __new__(cls, message, offset, code):
        return super().__new__(cls, (message, offset, code))

    message = property(lambda s: s[0])
    offset = property(lambda s: s[1])
    code = property(lambda s: s[2])

    def __repr__(self):
        return f"ganim.Warning({self[0]!r}, offset={self[1]}, code={self[2]!r})"


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _b(s):
    if s is None:
        return None
    return os.fsencode(s) if isinstance(s, os.PathLike) else (s.encode("utf-8") if isinstance(s, str) else bytes(s))


def _check(code, err):
    if code != 0:
        off = err.offset if err.offset != NO_OFFSET else None
        name = _s(_lib.ganim_code_name(err.code or code))
        raise Error(_s(err.message) or name, name, off)


def _warning(w):
    code = _WARN_CODES[w.code] if 0 <= w.code < len(_WARN_CODES) else str(w.code)
    return Warning(_s(w.message), None if w.offset == NO_OFFSET else w.offset, code)


def _take(buf):
    try:
        return ctypes.string_at(buf.data, buf.size) if buf.size else b""
    finally:
        _lib.ganim_buffer_free(ctypes.byref(buf))


def version():
    """The loaded library's version string ("0.1.0")."""
    return _s(_lib.ganim_version_string())


def formats():
    """Every format the library knows: a list of dicts (name, description, family,
    extensions, read, write)."""
    n = ctypes.c_size_t()
    arr = _lib.ganim_formats(ctypes.byref(n))
    out = []
    for i in range(n.value):
        f = arr[i].contents
        out.append({"name": _s(f.name), "description": _s(f.description), "family": _s(f.family),
                    "extensions": _s(f.extensions).split(";") if f.extensions else [],
                    "read": bool(f.flags & 1), "write": bool(f.flags & 2)})
    return out


def _read_opts(format=None, skeleton=None, settings=None, companion=True, fps=0.0, keep=None):
    o = N.ReadOpts()
    if format:
        keep.append(_b(format))
        o.format = keep[-1]
    if skeleton is not None:
        o.skeleton = skeleton._doc.contents.skeleton
        o.skeleton_must_fit = 1
    if settings:
        arr = (N.Setting * len(settings))()
        for i, (k, v) in enumerate(settings.items()):
            keep.extend([_b(str(k)), _b(str(v))])
            arr[i].name, arr[i].value = keep[-2], keep[-1]
        keep.append(arr)
        o.settings, o.setting_count = arr, len(settings)
    o.companion = 0 if companion else 1
    o.fps = float(fps or 0.0)
    return o


def read(path, skeleton=None, format=None, settings=None, companion=True, fps=0.0):
    """Reads a game file (or glTF, BVH) as the command line does: the format by probing
    (`format` names one instead), the companion skeleton found beside the file by the
    format's rule unless `skeleton` (a path, or a Document holding a skeleton) is given
    or companion=False. `settings`: reader options, e.g. {"argonaut.model": 0}."""
    keep = []
    skel_doc = None
    if skeleton is not None and not isinstance(skeleton, Document):
        skel_doc = skeleton = read(skeleton, companion=False)
    if skeleton is not None and not skeleton._doc.contents.skeleton:
        raise Error(f"{skeleton.path}: holds no skeleton", "invalid argument", None)
    o = _read_opts(format, skeleton, settings, companion, fps, keep)
    doc = N.DocP()
    err = N.Error()
    _check(_lib.ganim_read_file(_b(path), ctypes.byref(o), ctypes.byref(doc), ctypes.byref(err)), err)
    if skel_doc is not None:
        skel_doc.close()
    return Document(doc, os.fspath(path))


def read_bytes(data, skeleton=None, format=None, settings=None, name=None, fps=0.0):
    """Reads a file's bytes (no companion is looked for: give `skeleton`, a path or a
    Document). `name` is the file's name, for formats that care (an archive's data file)."""
    keep = []
    if skeleton is not None and not isinstance(skeleton, Document):
        skeleton = read(skeleton, companion=False)
    o = _read_opts(format, skeleton, settings, False, fps, keep)
    if name:
        keep.append(_b(os.path.basename(name)))
        o.name = keep[-1]
    data = bytes(data)
    doc = N.DocP()
    err = N.Error()
    _check(_lib.ganim_read_memory(data, len(data), ctypes.byref(o), ctypes.byref(doc), ctypes.byref(err)), err)
    return Document(doc, name)


class Bone:
    """A bone: name, parent (-1 for roots), rest = (rotation xyzw, translation xyz, scale xyz),
    flags ('hidden', 'synthetic')."""
    __slots__ = ("name", "parent", "rest", "hidden", "synthetic")

    def __init__(self, name, parent=-1, rest=None, hidden=False, synthetic=False):
        self.name = name
        self.parent = parent
        self.rest = rest or ((0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
        self.hidden = hidden
        self.synthetic = synthetic

    def __repr__(self):
        return f"ganim.Bone({self.name!r}, parent={self.parent})"


def _tr(t):
    r, p, s = t.rotation, t.translation, t.scale
    return ((r.x, r.y, r.z, r.w), (p.x, p.y, p.z), (s.x, s.y, s.z))


def _set_tr(t, v):
    (t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w) = v[0]
    (t.translation.x, t.translation.y, t.translation.z) = v[1]
    (t.scale.x, t.scale.y, t.scale.z) = v[2]


class Skeleton:
    """The document's skeleton: name, bones (a list of Bone), file (the companion it was read from, or None)."""

    def __init__(self, doc, s):
        self.name = _s(s.name)
        self.bones = [Bone(_s(b.name), b.parent, _tr(b.rest), bool(b.flags & 1), bool(b.flags & 2))
                      for b in (s.bones[i] for i in range(s.bone_count))]
        self.file = _s(doc.skeleton_file)

    def __repr__(self):
        return f"ganim.Skeleton({self.name!r}, {len(self.bones)} bones)"


def _channel_values(ch, comps, frames):
    """A channel as a plain value: None (absent), a tuple (constant), a list of tuples (per
    frame), or a dict {frame: tuple} (keyed)."""
    if ch.kind == 0 or ch.count == 0:
        return None
    vals = [tuple(ch.values[i * comps:(i + 1) * comps]) for i in range(ch.count)]
    if ch.kind == 1:
        return vals[0]
    if ch.kind == 2:
        return vals
    return {ch.times[i]: vals[i] for i in range(ch.count)}


class Track:
    """A clip's track: bone (index), name, rotation/translation/scale (see Clip.tracks),
    visibility and step (None or a bytes of one 0/1 per frame)."""
    __slots__ = ("bone", "name", "rotation", "translation", "scale", "visibility", "step")

    def __init__(self, bone, name="", rotation=None, translation=None, scale=None, visibility=None, step=None):
        self.bone, self.name = bone, name
        self.rotation, self.translation, self.scale = rotation, translation, scale
        self.visibility, self.step = visibility, step

    def __repr__(self):
        return f"ganim.Track(bone={self.bone}, name={self.name!r})"


class Clip:
    """One clip of a document (a view: it reads the document each time): name, fps,
    frame_count, kind ('animation' or 'opaque'), duration, partner (the Clip played with it, or None)."""

    def __init__(self, document, index):
        self._document = document
        self.index = index

    @property
    def _c(self):
        d = self._document._live()
        if self.index >= d.clip_count:
            raise Error(f"clip {self.index} is no longer in the document", "invalid argument", None)
        return d.clips[self.index]

    name = property(lambda self: _s(self._c.name))
    fps = property(lambda self: self._c.fps)
    frame_count = property(lambda self: self._c.frame_count)
    kind = property(lambda self: _KINDS.get(self._c.kind, str(self._c.kind)))
    duration = property(lambda self: (self._c.frame_count - 1) / self._c.fps if self._c.fps > 0 else 0.0)
    events = property(lambda self: [(self._c.events[i].frame, self._c.events[i].id)
                                    for i in range(self._c.event_count)])

    @property
    def partner(self):
        p = self._c.partner
        return Clip(self._document, p - 1) if p else None

    @property
    def opaque(self):
        c = self._c
        return ctypes.string_at(c.opaque, c.opaque_size) if c.opaque_size else None

    @property
    def tracks(self):
        """The clip's tracks as Track values (copies). A channel is None (absent: the rest
        value), a tuple (constant), a list of one tuple per frame, or a dict {frame: tuple}
        (keyed at those frames); rotations are (x, y, z, w)."""
        c = self._c
        n = c.frame_count
        out = []
        for i in range(c.track_count):
            t = c.tracks[i]
            out.append(Track(t.bone, _s(t.name), _channel_values(t.rotation, 4, n),
                             _channel_values(t.translation, 3, n), _channel_values(t.scale, 3, n),
                             ctypes.string_at(t.visibility, n) if t.visibility else None,
                             ctypes.string_at(t.step, n) if t.step else None))
        return out

    def sample(self, t, visibility=False):
        """Local (parent-relative) transforms of every bone at `t` seconds (clamped to the
        clip): a list per bone of (rotation xyzw, translation xyz, scale xyz), exactly
        ganim_clip_sample's numbers. visibility=True: also a list of booleans per bone."""
        d = self._document._live()
        if not d.skeleton:
            raise Error("the document has no skeleton to sample", "invalid argument", None)
        n = d.skeleton.contents.bone_count
        out = (N.Transform * max(n, 1))()
        vis = (ctypes.c_uint8 * max(n, 1))()
        err = N.Error()
        _check(_lib.ganim_clip_sample(ctypes.byref(d.clips[self.index]), d.skeleton, float(t), out, vis,
                                      ctypes.byref(err)), err)
        pose = [_tr(out[i]) for i in range(n)]
        return (pose, [bool(vis[i]) for i in range(n)]) if visibility else pose

    def sample_frame(self, frame, visibility=False):
        """sample() at frame `frame` (frame / fps seconds)."""
        return self.sample(frame / self.fps, visibility)

    def __repr__(self):
        return f"ganim.Clip({self.index}, {self.name!r}, {self.kind}, {self.frame_count} frames at {self.fps:g} fps)"


class _WarnSink:
    def __init__(self):
        self.items = []
        self.fn = N.WARN_FN(lambda user, w: self.items.append(_warning(w.contents)))


class Document:
    """What one file holds (ganim_doc): format, axes, skeleton, clips, meshes, warnings.

    It owns its C document: `with ganim.read(p) as doc:` frees it at the end of the block,
    close() frees it at once, and the garbage collector frees it otherwise."""

    def __init__(self, ptr, path=None):
        self._doc = ptr
        self.path = path

    # -- lifetime
    def close(self):
        if getattr(self, "_doc", None):
            _lib.ganim_doc_free(self._doc)
            self._doc = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if not self._doc:
            raise Error("the document was closed", "invalid argument", None)
        return self._doc.contents

    # -- what it holds
    @property
    def format(self):
        f = self._live().format
        return _s(f.contents.name) if f else None

    @property
    def axes(self):
        a = self._live().axes
        return _AXES[a] if 0 <= a < len(_AXES) else str(a)

    @axes.setter
    def axes(self, value):
        self._live().axes = _AXES.index(value)

    @property
    def skeleton(self):
        d = self._live()
        return Skeleton(d, d.skeleton.contents) if d.skeleton else None

    @property
    def clips(self):
        return [Clip(self, i) for i in range(self._live().clip_count)]

    @property
    def warnings(self):
        d = self._live()
        return [_warning(d.warnings[i]) for i in range(d.warning_count)]

    @property
    def used_files(self):
        d = self._live()
        return [_s(d.used_files[i]) for i in range(d.used_file_count)]

    @property
    def meshes(self):
        """Meshes skinned to the skeleton (Argonaut models): dicts of name, positions,
        normals (or None), bones (one per vertex) and triangles."""
        d = self._live()
        out = []
        for i in range(d.mesh_count):
            m = d.meshes[i]
            v, t = m.vertex_count, m.triangle_count
            out.append({"name": _s(m.name),
                        "positions": [tuple(m.positions[j * 3:j * 3 + 3]) for j in range(v)],
                        "normals": [tuple(m.normals[j * 3:j * 3 + 3]) for j in range(v)] if m.normals else None,
                        "bones": [m.bones[j] for j in range(v)],
                        "triangles": [tuple(m.triangles[j * 3:j * 3 + 3]) for j in range(t)]})
        return out

    def find_clip(self, spec):
        """The Clip `spec` names: its index, else its name (exact, then ignoring case)."""
        idx = ctypes.c_uint32()
        err = N.Error()
        _check(_lib.ganim_doc_find_clip(self._doc, _b(str(spec)), ctypes.byref(idx), ctypes.byref(err)), err)
        return Clip(self, idx.value)

    def details(self, clip=None, full=False):
        """What the format knows beyond the model (ganim_doc_details), as the JSON `ganim info
        --json` and `ganim dump` print it under "native" (docs/dump-format.md): a dict, or
        None when the format has nothing to say. `clip`: a clip's details instead of the
        document's; full=True: everything, raw integers included."""
        ci = -1 if clip is None else (clip.index if isinstance(clip, Clip) else self.find_clip(clip).index)
        out, err, buf = ctypes.POINTER(N.Details)(), N.Error(), N.Buffer()
        _check(_lib.ganim_doc_details(self._doc, ci, 1 if full else 0, None, ctypes.byref(out), ctypes.byref(err)),
               err)
        try:
            code = _lib.ganim_detail_json(out.contents.root, ctypes.byref(buf), ctypes.byref(err))
            text = _take(buf)
            _check(code, err)
        finally:
            _lib.ganim_details_free(out)
        return json.loads(text.decode("utf-8"))

    def validate(self):
        """Raises ganim.Error when the document breaks an invariant of the model."""
        err = N.Error()
        _check(_lib.ganim_doc_validate(self._doc, ctypes.byref(err)), err)

    def resample(self, factor):
        """factor-1 frames between every two (the format's own resampler where it has one)."""
        err = N.Error()
        _check(_lib.ganim_doc_resample(self._doc, int(factor), ctypes.byref(err)), err)

    # -- output
    def _export_opts(self, clip, keep_axes, unit_scale, sparse_keys, keep, unscaled_rest=False):
        o = N.ExportOpts()
        o.unscaled_rest = int(bool(unscaled_rest))
        if clip is not None:
            o.only_clip = (clip.index if isinstance(clip, Clip) else self.find_clip(clip).index) + 1
        o.keep_axes = int(bool(keep_axes))
        o.unit_scale = float(unit_scale or 0.0)
        o.sparse_keys = int(bool(sparse_keys))
        if self.path:
            keep.append(_b(os.path.splitext(os.path.basename(str(self.path).split(":")[-1]))[0]))
            o.default_clip_name = keep[-1]
        return o

    def export_bytes(self, kind, clip=None, keep_axes=False, unit_scale=0.0, sparse_keys=False,
                     unscaled_rest=False):
        """The document as 'glb', 'bvh', 'json' (the dump) or 'info' (ganim info --json)
        bytes; (the .gltf JSON, its buffer) for 'gltf' (the buffer named buffer.bin). Returns
        (bytes, warnings)."""
        keep = []
        if kind == "bvh" and clip is None and not any(c.kind == "animation" for c in self.clips):
            raise Error("no animation clip to write as BVH", "invalid argument", None)  # as the tool says
        o = self._export_opts(clip, keep_axes, unit_scale, sparse_keys, keep, unscaled_rest)
        sink = _WarnSink()
        o.warn = sink.fn
        out, binb, err = N.Buffer(), N.Buffer(), N.Error()
        fn = {"glb": _lib.ganim_export_glb, "bvh": _lib.ganim_export_bvh, "json": _lib.ganim_export_json,
              "info": _lib.ganim_export_info_json}.get(kind)
        if kind == "gltf":
            code = _lib.ganim_export_gltf(self._doc, ctypes.byref(o), ctypes.byref(out), ctypes.byref(binb),
                                          ctypes.byref(err))
            data = (_take(out), _take(binb))
        elif fn is None:
            raise Error(f"no exporter '{kind}' (glb, gltf, bvh, json, info)", "invalid argument", None)
        else:
            code = fn(self._doc, ctypes.byref(o), ctypes.byref(out), ctypes.byref(err))
            data = _take(out)
            _lib.ganim_buffer_free(ctypes.byref(binb))
        _check(code, err)
        return data, sink.items

    def export(self, path, clip=None, keep_axes=False, unit_scale=0.0, sparse_keys=False, unscaled_rest=False):
        """Exports to `path` by its extension: .glb, .gltf (with PATH.bin beside it), .bvh,
        .json (the lossless dump). The options are the tool's: keep_axes (--keep-axes),
        unit_scale (--unit-scale), sparse_keys (--sparse-keys), unscaled_rest
        (--unscaled-rest). Returns the exporter's warnings."""
        path = os.fspath(path)
        self._refuse_inputs(path)
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        keep = []
        if ext == "gltf":
            bin_path = os.path.splitext(path)[0] + ".bin"
            o = self._export_opts(clip, keep_axes, unit_scale, sparse_keys, keep, unscaled_rest)
            o.bin_uri = _b(os.path.basename(bin_path))
            sink = _WarnSink()
            o.warn = sink.fn
            js, binb, err = N.Buffer(), N.Buffer(), N.Error()
            code = _lib.ganim_export_gltf(self._doc, ctypes.byref(o), ctypes.byref(js), ctypes.byref(binb),
                                          ctypes.byref(err))
            js_b, bin_b = _take(js), _take(binb)
            _check(code, err)
            _write_file(bin_path, bin_b)
            _write_file(path, js_b)
            return sink.items
        if ext == "glb":  # its head and binary chunk written one after the other: never held whole
            o = self._export_opts(clip, keep_axes, unit_scale, sparse_keys, keep, unscaled_rest)
            sink = _WarnSink()
            o.warn = sink.fn
            head, binb, err = N.Buffer(), N.Buffer(), N.Error()
            code = _lib.ganim_export_glb_parts(self._doc, ctypes.byref(o), ctypes.byref(head), ctypes.byref(binb),
                                               ctypes.byref(err))
            try:
                _check(code, err)
                _write_buffers(path, (head, binb))
            finally:
                _lib.ganim_buffer_free(ctypes.byref(head))
                _lib.ganim_buffer_free(ctypes.byref(binb))
            return sink.items
        if ext not in ("glb", "bvh", "json"):
            raise Error(f"{path}: export writes .glb, .gltf, .bvh or .json (a game format: Document.write)",
                        "invalid argument", None)
        data, warns = self.export_bytes(ext, clip, keep_axes, unit_scale, sparse_keys, unscaled_rest)
        _write_file(path, data)
        return warns

    def _refuse_inputs(self, path, into=None):
        """As the tool does: no output replaces a file the documents were read from."""
        if not os.path.exists(path):
            return
        inputs = [self.path] + self.used_files
        if isinstance(into, Document):
            inputs += [into.path] + into.used_files
        elif into is not None:
            inputs.append(os.fspath(into))
        for p in inputs:
            if p and os.path.exists(p) and os.path.samefile(path, p):
                raise Error(f"{path}: will not write over {p}, a file the document was read from",
                            "invalid argument", None)

    def write_bytes(self, format=None, into=None, slot=None, settings=None, fps=0.0):
        """The document in a game format (`format` by name; None: the document's own, or
        with `into` the original's). `into`: the original (a path or a Document) to put the
        clips into, the rest coming back as it is. Returns (bytes, warnings)."""
        keep = []
        into_doc = None
        if into is not None and not isinstance(into, Document):
            into_doc = into = read(into)
        o = N.WriteOpts()
        if into is not None:
            o.into = into._doc
        if slot is not None:
            keep.append(_b(str(slot)))
            o.slot = keep[-1]
        if settings:
            arr = (N.Setting * len(settings))()
            for i, (k, v) in enumerate(settings.items()):
                keep.extend([_b(str(k)), _b(str(v))])
                arr[i].name, arr[i].value = keep[-2], keep[-1]
            o.settings, o.setting_count = arr, len(settings)
        o.fps = float(fps or 0.0)
        sink = _WarnSink()
        o.warn = sink.fn
        out, err = N.Buffer(), N.Error()
        try:
            code = _lib.ganim_write(self._doc, _b(format), ctypes.byref(o), ctypes.byref(out), ctypes.byref(err))
            data = _take(out)
            _check(code, err)
        finally:
            if into_doc is not None:
                into_doc.close()
        return data, sink.items

    def write(self, path, into=None, format=None, slot=None, settings=None, fps=0.0):
        """Writes a game file at `path`: its format from `format`, else the extension (with
        `into`: the original's format). `into` (a path or a Document): the original the clips
        go into. Refuses to write over `into` itself. Returns the writer's warnings."""
        path = os.fspath(path)
        self._refuse_inputs(path, into)
        if format is None and into is None:
            f = _lib.ganim_format_for_path(_b(path))
            if not f or not f.contents.flags & 2:
                raise Error(f"{path}: no writable format has this extension (format= names one)",
                            "invalid argument", None)
            format = _s(f.contents.name)
        data, warns = self.write_bytes(format, into, slot, settings, fps)
        _write_file(path, data)
        return warns

    # -- building (ganim_doc_new and friends)
    def set_skeleton(self, bones, name=""):
        """Gives the document a skeleton: `bones` a list of Bone, or of (name, parent[, rest])."""
        keep = []
        arr = (N.Bone * max(len(bones), 1))()
        for i, b in enumerate(bones):
            if not isinstance(b, Bone):
                b = Bone(*b)
            keep.append(_b(b.name or ""))
            arr[i].name = keep[-1]
            arr[i].parent = int(b.parent)
            _set_tr(arr[i].rest, b.rest)
            arr[i].flags = (1 if b.hidden else 0) | (2 if b.synthetic else 0)
        s = N.Skeleton()
        s.name = _b(name)
        s.bone_count = len(bones)
        s.bones = arr
        err = N.Error()
        _check(_lib.ganim_doc_set_skeleton(self._doc, ctypes.byref(s), ctypes.byref(err)), err)

    def add_clip(self, name, fps, frame_count, tracks=(), events=()):
        """Appends an animation clip and returns it. `tracks`: Track values, or dicts with
        bone and any of rotation, translation, scale (None, a tuple, a list per frame, or a
        dict {frame: value}), visibility, step, name."""
        c = N.Clip()
        c.name = _b(name or "")
        c.kind = 0
        c.fps = float(fps)
        c.frame_count = int(frame_count)
        err, idx = N.Error(), ctypes.c_uint32()
        _check(_lib.ganim_doc_add_clip(self._doc, ctypes.byref(c), ctypes.byref(idx), ctypes.byref(err)), err)
        clip = Clip(self, idx.value)
        for t in tracks:
            self.add_track(clip, t)
        if events:
            ev = (N.Event * len(events))(*[N.Event(float(f), int(i)) for f, i in events])
            _check(_lib.ganim_doc_set_events(self._doc, idx.value, ev, len(events), ctypes.byref(err)), err)
        return clip

    def add_track(self, clip, track):
        """Appends a track (a Track or a dict, as add_clip takes) to `clip` (a Clip or an index)."""
        ci = clip.index if isinstance(clip, Clip) else int(clip)
        if isinstance(track, dict):
            track = Track(**track)
        n = self._live().clips[ci].frame_count if ci < self._live().clip_count else 0
        keep = []
        t = N.Track()
        t.bone = int(track.bone)
        keep.append(_b(track.name or ""))
        t.name = keep[-1]
        t.rotation = _channel(track.rotation, 4, n, keep)
        t.translation = _channel(track.translation, 3, n, keep)
        t.scale = _channel(track.scale, 3, n, keep)
        for field in ("visibility", "step"):
            v = getattr(track, field)
            if v is not None:
                v = bytes(bytearray(int(bool(x)) for x in v))
                if len(v) != n:
                    raise Error(f"track of bone {track.bone}: {field} has {len(v)} values for {n} frames",
                                "invalid argument", None)
                a = (ctypes.c_uint8 * n).from_buffer_copy(v)
                keep.append(a)
                setattr(t, field, ctypes.cast(a, N.c_uint8_p))
        err, idx = N.Error(), ctypes.c_uint32()
        _check(_lib.ganim_doc_add_track(self._doc, ci, ctypes.byref(t), ctypes.byref(idx), ctypes.byref(err)), err)
        return idx.value

    def set_channel(self, clip, track, target, value):
        """Replaces one channel ('rotation', 'translation', 'scale') of track `track` of
        `clip` with `value` (None, a tuple, a list per frame, a dict {frame: value})."""
        ci = clip.index if isinstance(clip, Clip) else int(clip)
        if target not in _CHANNEL_TARGETS:
            raise Error(f"no channel '{target}' (rotation, translation, scale)", "invalid argument", None)
        d = self._live()
        n = d.clips[ci].frame_count if ci < d.clip_count else 0
        keep = []
        ch = _channel(value, 4 if target == "rotation" else 3, n, keep)
        err = N.Error()
        _check(_lib.ganim_doc_set_channel(self._doc, ci, int(track), _CHANNEL_TARGETS[target], ctypes.byref(ch),
                                          ctypes.byref(err)), err)

    def put_clip(self, index, source, source_index=None, channels=None):
        """Replaces clip `index` with clip `source_index` (default: `index`) of the Document
        `source` (same skeleton), or with only some of its channels: `channels` a dict
        {bone index: {'rotation', 'translation', 'scale'}} (a scale also takes the source's
        visibility). The clip keeps its own name, record and events: the writer re-encodes
        only what changed. A clip whose frame count differs is taken whole."""
        si = index if source_index is None else source_index
        d, sd = self._live(), source._live()
        if index >= d.clip_count or si >= sd.clip_count:
            raise Error(f"no clip {index} to replace with clip {si}", "invalid argument", None)
        dst, src = d.clips[index], sd.clips[si]
        err = N.Error()
        if channels is None or dst.frame_count != src.frame_count:
            c = N.Clip.from_buffer_copy(src)
            c.name, c.native_format, c.native, c.native_size = dst.name, dst.native_format, dst.native, \
                dst.native_size
            c.event_count, c.events, c.partner = dst.event_count, dst.events, dst.partner
            _check(_lib.ganim_doc_set_clip(self._doc, index, ctypes.byref(c), ctypes.byref(err)), err)
            return
        by_bone = {src.tracks[i].bone: src.tracks[i] for i in range(src.track_count)}
        tracks = (N.Track * max(dst.track_count, 1))()
        for i in range(dst.track_count):
            t = N.Track.from_buffer_copy(dst.tracks[i])
            s_t = by_bone.get(t.bone)
            for kind in channels.get(t.bone, ()) if s_t is not None else ():
                setattr(t, kind, getattr(s_t, kind))
                if kind == "scale" and (s_t.visibility or t.visibility):
                    t.visibility = s_t.visibility
            tracks[i] = t
        c = N.Clip.from_buffer_copy(dst)
        c.tracks = tracks
        _check(_lib.ganim_doc_set_clip(self._doc, index, ctypes.byref(c), ctypes.byref(err)), err)

    def __repr__(self):
        if not self._doc:
            return "ganim.Document(closed)"
        return f"ganim.Document({self.path!r}, {self.format}, {len(self.clips)} clips)"


def _channel(value, comps, frames, keep):
    ch = N.Channel()
    if value is None:
        return ch
    if isinstance(value, dict):
        times = sorted(value)
        vals = [value[t] for t in times]
        ch.kind = 3
        tarr = (ctypes.c_float * max(len(times), 1))(*[float(t) for t in times])
        keep.append(tarr)
        ch.times = tarr
    elif value and isinstance(value[0], (tuple, list)):
        vals = list(value)
        ch.kind = 2
    else:
        vals = [value]
        ch.kind = 1
    flat = []
    for v in vals:
        if len(v) != comps:
            raise Error(f"a channel value has {len(v)} numbers, not {comps}", "invalid argument", None)
        flat.extend(float(x) for x in v)
    arr = (ctypes.c_float * max(len(flat), 1))(*flat)
    keep.append(arr)
    ch.count = len(vals)
    ch.values = arr
    return ch


def new(bones=None, clips=(), axes="y_up"):
    """A new document built from Python values (ganim_doc_new and friends): `bones` as
    Document.set_skeleton takes them, `clips` a list of dicts (name, fps, frame_count,
    tracks, events) as Document.add_clip takes them; axes 'y_up', 'z_up' or 'y_down'."""
    doc = N.DocP()
    err = N.Error()
    _check(_lib.ganim_doc_new(None, ctypes.byref(doc), ctypes.byref(err)), err)
    d = Document(doc)
    d.axes = axes
    if bones is not None:
        d.set_skeleton(bones)
    for c in clips:
        d.add_clip(**c)
    return d


def _write_buffers(path, bufs):
    """The library's buffers one after the other into `path` (as _write_file), straight
    from their memory (no copy into Python bytes)."""
    tmp = path + ".ganim-tmp"
    with open(tmp, "wb") as f:
        for b in bufs:
            if b.size:
                at = ctypes.cast(b.data, ctypes.c_void_p).value
                f.write(memoryview((ctypes.c_char * b.size).from_address(at)))
    os.replace(tmp, path)


def _write_file(path, data):
    tmp = path + ".ganim-tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)

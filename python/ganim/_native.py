"""The C ABI of libganim, declared once for ctypes (include/ganim.h is the reference).

Nothing here is for callers: the Pythonic layer is in ganim/__init__.py. Every structure
mirrors the header's field by field; every prototype names its argument and result types
so that ctypes converts and checks them. The library is found beside this file (what
`make python` puts there), else at $GANIM_LIBRARY, else where the system's loader looks.
"""
import ctypes
import ctypes.util
import os
import sys

c_float_p = ctypes.POINTER(ctypes.c_float)
c_uint8_p = ctypes.POINTER(ctypes.c_uint8)
c_uint32_p = ctypes.POINTER(ctypes.c_uint32)


class Allocator(ctypes.Structure):
    _fields_ = [("alloc", ctypes.c_void_p), ("realloc", ctypes.c_void_p), ("free", ctypes.c_void_p),
                ("user", ctypes.c_void_p)]


class Buffer(ctypes.Structure):
    _fields_ = [("data", c_uint8_p), ("size", ctypes.c_size_t), ("capacity", ctypes.c_size_t),
                ("allocator", Allocator)]


class Error(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("offset", ctypes.c_uint64), ("message", ctypes.c_char * 512)]


class Vec3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("z", ctypes.c_float)]


class Quat(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("z", ctypes.c_float), ("w", ctypes.c_float)]


class Transform(ctypes.Structure):
    _fields_ = [("rotation", Quat), ("translation", Vec3), ("scale", Vec3)]


class Bone(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("parent", ctypes.c_int32), ("rest", Transform), ("flags", ctypes.c_uint32)]


class Skeleton(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("bone_count", ctypes.c_uint32), ("bones", ctypes.POINTER(Bone)),
                ("native_format", ctypes.c_char_p), ("native", c_uint8_p), ("native_size", ctypes.c_size_t)]


class Channel(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("count", ctypes.c_uint32), ("times", c_float_p), ("values", c_float_p)]


class Track(ctypes.Structure):
    _fields_ = [("bone", ctypes.c_uint32), ("name", ctypes.c_char_p), ("rotation", Channel),
                ("translation", Channel), ("scale", Channel), ("visibility", c_uint8_p), ("step", c_uint8_p)]


class Event(ctypes.Structure):
    _fields_ = [("frame", ctypes.c_float), ("id", ctypes.c_uint32)]


class Clip(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("fps", ctypes.c_double),
                ("frame_count", ctypes.c_uint32), ("track_count", ctypes.c_uint32),
                ("tracks", ctypes.POINTER(Track)), ("rotation_interp", ctypes.c_int),
                ("opaque", c_uint8_p), ("opaque_size", ctypes.c_size_t),
                ("native_format", ctypes.c_char_p), ("native", c_uint8_p), ("native_size", ctypes.c_size_t),
                ("event_count", ctypes.c_uint32), ("events", ctypes.POINTER(Event)), ("partner", ctypes.c_uint32)]


class Warning_(ctypes.Structure):
    _fields_ = [("offset", ctypes.c_uint64), ("message", ctypes.c_char_p), ("code", ctypes.c_int)]


class Mesh(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("vertex_count", ctypes.c_uint32), ("positions", c_float_p),
                ("normals", c_float_p), ("bones", c_uint32_p), ("triangle_count", ctypes.c_uint32),
                ("triangles", c_uint32_p)]


class Option(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("alias", ctypes.c_char_p), ("type", ctypes.c_int),
                ("flags", ctypes.c_uint32), ("values", ctypes.c_char_p), ("help", ctypes.c_char_p),
                ("when_unset", ctypes.c_char_p), ("deprecated_alias", ctypes.c_char_p)]


class Format(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("description", ctypes.c_char_p), ("family", ctypes.c_char_p),
                ("extensions", ctypes.c_char_p), ("flags", ctypes.c_uint32), ("options", ctypes.POINTER(Option)),
                ("option_count", ctypes.c_uint32), ("companion", ctypes.c_char_p), ("impl", ctypes.c_void_p)]


class Doc(ctypes.Structure):
    _fields_ = [("format", ctypes.POINTER(Format)), ("axes", ctypes.c_int), ("skeleton", ctypes.POINTER(Skeleton)),
                ("clip_count", ctypes.c_uint32), ("clips", ctypes.POINTER(Clip)),
                ("mesh_count", ctypes.c_uint32), ("meshes", ctypes.POINTER(Mesh)),
                ("warning_count", ctypes.c_uint32), ("warnings", ctypes.POINTER(Warning_)),
                ("warnings_dropped", ctypes.c_uint32),
                ("native_format", ctypes.c_char_p), ("native", c_uint8_p), ("native_size", ctypes.c_size_t),
                ("probe_score", ctypes.c_int), ("skeleton_file", ctypes.c_char_p),
                ("used_file_count", ctypes.c_uint32), ("used_files", ctypes.POINTER(ctypes.c_char_p)),
                ("internal", ctypes.c_void_p)]


class Setting(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class Limits(ctypes.Structure):
    _fields_ = [("input_bytes", ctypes.c_uint64), ("frames", ctypes.c_uint32), ("bones", ctypes.c_uint32),
                ("clips", ctypes.c_uint32), ("keys", ctypes.c_uint32), ("samples", ctypes.c_uint64)]


LOAD_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(Buffer),
                           ctypes.POINTER(Error))
WARN_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(Warning_))


class ReadOpts(ctypes.Structure):
    _fields_ = [("allocator", Allocator), ("memory_limit", ctypes.c_size_t), ("limits", Limits),
                ("format", ctypes.c_char_p), ("skeleton", ctypes.POINTER(Skeleton)),
                ("skeleton_must_fit", ctypes.c_int), ("settings", ctypes.POINTER(Setting)),
                ("setting_count", ctypes.c_uint32), ("companion", ctypes.c_int), ("up", ctypes.c_int),
                ("load", ctypes.c_void_p), ("load_user", ctypes.c_void_p), ("name", ctypes.c_char_p),
                ("fps", ctypes.c_double), ("folder_names", ctypes.c_void_p), ("folder_name_count", ctypes.c_size_t),
                ("input_outlives_doc", ctypes.c_int)]  # left 0: Python's bytes may go first


class WriteOpts(ctypes.Structure):
    _fields_ = [("allocator", Allocator), ("settings", ctypes.POINTER(Setting)), ("setting_count", ctypes.c_uint32),
                ("warn", WARN_FN), ("warn_user", ctypes.c_void_p), ("into", ctypes.POINTER(Doc)),
                ("slot", ctypes.c_char_p), ("fps", ctypes.c_double)]


class ExportOpts(ctypes.Structure):
    _fields_ = [("allocator", Allocator), ("only_clip", ctypes.c_uint32), ("keep_axes", ctypes.c_int),
                ("unit_scale", ctypes.c_float), ("visibility", ctypes.c_int), ("sparse_keys", ctypes.c_int),
                ("bin_uri", ctypes.c_char_p), ("generator", ctypes.c_char_p), ("bvh_order", ctypes.c_char_p),
                ("bvh_joint_positions", ctypes.c_int), ("default_clip_name", ctypes.c_char_p),
                ("warn", WARN_FN), ("warn_user", ctypes.c_void_p), ("unscaled_rest", ctypes.c_int)]


class Details(ctypes.Structure):
    _fields_ = [("root", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


DocP = ctypes.POINTER(Doc)
ErrP = ctypes.POINTER(Error)
BufP = ctypes.POINTER(Buffer)

# name: (result, argument types)
_PROTOTYPES = {
    "ganim_version": (ctypes.c_uint, []),
    "ganim_version_string": (ctypes.c_char_p, []),
    "ganim_code_name": (ctypes.c_char_p, [ctypes.c_int]),
    "ganim_buffer_free": (None, [BufP]),
    "ganim_formats": (ctypes.POINTER(ctypes.POINTER(Format)), [ctypes.POINTER(ctypes.c_size_t)]),
    "ganim_format_find": (ctypes.POINTER(Format), [ctypes.c_char_p]),
    "ganim_format_for_path": (ctypes.POINTER(Format), [ctypes.c_char_p]),
    "ganim_read_memory": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ReadOpts),
                                         ctypes.POINTER(DocP), ErrP]),
    "ganim_read_file": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ReadOpts), ctypes.POINTER(DocP), ErrP]),
    "ganim_doc_free": (None, [DocP]),
    "ganim_doc_validate": (ctypes.c_int, [DocP, ErrP]),
    "ganim_doc_find_clip": (ctypes.c_int, [DocP, ctypes.c_char_p, c_uint32_p, ErrP]),
    "ganim_write": (ctypes.c_int, [DocP, ctypes.c_char_p, ctypes.POINTER(WriteOpts), BufP, ErrP]),
    "ganim_doc_resample": (ctypes.c_int, [DocP, ctypes.c_uint, ErrP]),
    "ganim_doc_new": (ctypes.c_int, [ctypes.POINTER(ReadOpts), ctypes.POINTER(DocP), ErrP]),
    "ganim_doc_set_skeleton": (ctypes.c_int, [DocP, ctypes.POINTER(Skeleton), ErrP]),
    "ganim_doc_add_clip": (ctypes.c_int, [DocP, ctypes.POINTER(Clip), c_uint32_p, ErrP]),
    "ganim_doc_set_clip": (ctypes.c_int, [DocP, ctypes.c_uint32, ctypes.POINTER(Clip), ErrP]),
    "ganim_doc_add_track": (ctypes.c_int, [DocP, ctypes.c_uint32, ctypes.POINTER(Track), c_uint32_p, ErrP]),
    "ganim_doc_set_channel": (ctypes.c_int, [DocP, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int,
                                             ctypes.POINTER(Channel), ErrP]),
    "ganim_doc_set_events": (ctypes.c_int, [DocP, ctypes.c_uint32, ctypes.POINTER(Event), ctypes.c_uint32, ErrP]),
    "ganim_clip_sample": (ctypes.c_int, [ctypes.POINTER(Clip), ctypes.POINTER(Skeleton), ctypes.c_double,
                                         ctypes.POINTER(Transform), c_uint8_p, ErrP]),
    "ganim_doc_details": (ctypes.c_int, [DocP, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                         ctypes.POINTER(ctypes.POINTER(Details)), ErrP]),
    "ganim_details_free": (None, [ctypes.POINTER(Details)]),
    "ganim_detail_json": (ctypes.c_int, [ctypes.c_void_p, BufP, ErrP]),
    "ganim_export_glb": (ctypes.c_int, [DocP, ctypes.POINTER(ExportOpts), BufP, ErrP]),
    "ganim_export_gltf": (ctypes.c_int, [DocP, ctypes.POINTER(ExportOpts), BufP, BufP, ErrP]),
    "ganim_export_glb_parts": (ctypes.c_int, [DocP, ctypes.POINTER(ExportOpts), BufP, BufP, ErrP]),
    "ganim_export_bvh": (ctypes.c_int, [DocP, ctypes.POINTER(ExportOpts), BufP, ErrP]),
    "ganim_export_json": (ctypes.c_int, [DocP, ctypes.POINTER(ExportOpts), BufP, ErrP]),
    "ganim_export_info_json": (ctypes.c_int, [DocP, ctypes.POINTER(ExportOpts), BufP, ErrP]),
}


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("GANIM_LIBRARY")
    if env:
        yield env
        return
    names = ["ganim.dll", "libganim.dll"] if sys.platform == "win32" else \
        ["libganim.dylib"] if sys.platform == "darwin" else ["libganim.so"]
    for n in names:
        p = os.path.join(here, n)
        if os.path.exists(p):
            yield p
    found = ctypes.util.find_library("ganim")
    if found:
        yield found


def load():
    """The loaded library with every prototype declared, or ImportError saying where it looked."""
    tried = []
    for path in _candidates():
        tried.append(path)
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried[-1] += f" ({e})"
            continue
        for name, (res, args) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        return lib, path
    raise ImportError("ganim: no native library found (run `make python`, or set GANIM_LIBRARY to "
                      "libganim.so / ganim.dll); tried: " + (", ".join(tried) or "nothing beside the package"))

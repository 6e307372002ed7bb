"""A PEP 517 build backend for the ganim binding that needs nothing but Python.

`pip install ./python` builds a wheel of python/ganim with the native library that
`make python` put beside it (libganim.so, and ganim.dll when there): no setuptools, no
download, so it works offline and in an isolated build environment. The wheel is tagged
for the platform it is built on (it carries a native library).
"""
import base64
import hashlib
import os
import sysconfig
import zipfile

NAME, VERSION = "ganim", "0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "ganim")
LIBS = ("libganim.so", "ganim.dll", "libganim.dylib")


def _tag():
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"py3-none-{plat}"


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: Read, convert and re-encode skeletal animations from game files (ctypes over libganim)\n"
            "Requires-Python: >=3.7\n")


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, f"{NAME}-{VERSION}.dist-info")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(_metadata())
    return os.path.basename(d)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = sorted(n for n in os.listdir(PKG) if n.endswith(".py") or n in LIBS)
    if not any(n in LIBS for n in files):
        raise RuntimeError("ganim: no native library in python/ganim: run `make python` first")
    dist = f"{NAME}-{VERSION}.dist-info"
    tag = _tag()
    wheel = os.path.join(wheel_directory, f"{NAME}-{VERSION}-{tag}.whl")
    record = []

    def add(zf, arcname, data):
        zf.writestr(arcname, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arcname},sha256={digest},{len(data)}")

    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for n in files:
            with open(os.path.join(PKG, n), "rb") as f:
                add(zf, f"{NAME}/{n}", f.read())
        add(zf, f"{dist}/METADATA", _metadata().encode())
        add(zf, f"{dist}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: ganim build_backend\n"
                                  f"Root-Is-Purelib: false\nTag: {tag}\n").encode())
        record.append(f"{dist}/RECORD,,")
        zf.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return os.path.basename(wheel)


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    name = f"{NAME}-{VERSION}"
    path = os.path.join(sdist_directory, name + ".tar.gz")
    with tarfile.open(path, "w:gz") as tf:
        for n in ("pyproject.toml", "build_backend.py"):
            tf.add(os.path.join(HERE, n), f"{name}/{n}")
        for n in sorted(os.listdir(PKG)):
            if n.endswith(".py") or n in LIBS:
                tf.add(os.path.join(PKG, n), f"{name}/ganim/{n}")
        info = tarfile.TarInfo(f"{name}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        import io
        tf.addfile(info, io.BytesIO(data))
    return os.path.basename(path)

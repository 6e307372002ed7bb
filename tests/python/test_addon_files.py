"""The Blender add-on's metadata agrees with itself and with the library, and keeps the
rules Blender 4.2's extension installer checks (tagline and permission texts at most 64
characters, ending with a letter or digit; semantic versions; a known type)."""
import ast
import os
import re
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADDON = os.path.join(REPO, "blender", "ganim_blender")

try:
    import tomllib
except ImportError:  # Python before 3.11
    tomllib = None


class AddonFiles(unittest.TestCase):
    def versions(self):
        with open(os.path.join(REPO, "include", "ganim.h")) as f:
            header = re.search(r'#define GANIM_VERSION_STRING "(.*)"', f.read()).group(1)
        with open(os.path.join(ADDON, "__init__.py")) as f:
            tree = ast.parse(f.read())
        bl_info = next(ast.literal_eval(n.value) for n in tree.body
                       if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "bl_info")
        return header, bl_info

    def test_bl_info(self):
        header, bl_info = self.versions()
        self.assertEqual(".".join(map(str, bl_info["version"])), header)
        self.assertEqual(bl_info["blender"], (3, 4, 0))
        self.assertEqual(bl_info["category"], "Import-Export")

    @unittest.skipIf(tomllib is None, "tomllib needs Python 3.11")
    def test_manifest(self):
        header, _ = self.versions()
        with open(os.path.join(ADDON, "blender_manifest.toml"), "rb") as f:
            m = tomllib.load(f)
        for key in ("schema_version", "id", "version", "name", "tagline", "maintainer", "type",
                    "blender_version_min", "license"):
            self.assertIn(key, m)
        self.assertEqual(m["id"], "ganim_blender")
        self.assertEqual(m["version"], header)
        self.assertEqual(m["type"], "add-on")
        self.assertRegex(m["blender_version_min"], r"^\d+\.\d+\.\d+$")
        for text in [m["tagline"]] + list(m.get("permissions", {}).values()):
            self.assertLessEqual(len(text), 64, text)
            self.assertTrue(text[-1].isalnum(), text)
        self.assertEqual(set(m["platforms"]), {"linux-x64", "windows-x64"})
        self.assertTrue(all(lic.startswith("SPDX:") for lic in m["license"]))

    def test_pyproject_version(self):
        header, _ = self.versions()
        with open(os.path.join(REPO, "python", "pyproject.toml")) as f:
            self.assertIn(f'version = "{header}"', f.read())
        with open(os.path.join(REPO, "python", "build_backend.py")) as f:
            self.assertIn(f'NAME, VERSION = "ganim", "{header}"', f.read())


if __name__ == "__main__":
    unittest.main()

"""ganim for Blender: game animations in, edits back into the game file.

File > Import > Game animation (ganim): ganim reads the game file (its companion skeleton
found as the command line finds it) and exports a glb; Blender's own glTF importer brings it
in with the settings that keep the pose (docs/blender.md). File > Export > Game animation
(ganim): Blender's own glTF exporter writes the armature's actions, and ganim puts what
changed since the import back into the original game file. The add-on carries the ganim
Python binding (ctypes over libganim) and the native library: no compiled extension, so
it survives Blender's Python upgrades.
"""
bl_info = {
    "name": "ganim: game animations",
    "author": "ganim",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import / Export > Game animation (ganim)",
    "description": "Import FF7, Alamo, Civ VII and Argonaut animations and put edits back",
    "category": "Import-Export",
}

import os  # noqa: E402

import bpy  # noqa: E402
from bpy.props import IntProperty, StringProperty  # noqa: E402
from bpy_extras.io_utils import ExportHelper, ImportHelper  # noqa: E402

from . import trip  # noqa: E402

GAME_FILTER = "*.ala;*.da;*.a00;*.civ;*.acl;*.wad;*.dir;*.glb;*.gltf;*.bvh;*"


class IMPORT_ANIM_OT_ganim(bpy.types.Operator, ImportHelper):
    """Import a game animation file (FF7, Alamo, Civ VII, ACL, Argonaut, glTF, BVH) with ganim"""
    bl_idname = "import_anim.ganim"
    bl_label = "Import Game Animation"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filter_glob: StringProperty(default=GAME_FILTER, options={"HIDDEN"})
    skeleton_filepath: StringProperty(
        name="Skeleton", subtype="FILE_PATH", default="",
        description="The skeleton file (.ALO, ??aa) to use; empty: the companion found beside the file")
    argonaut_model: IntProperty(
        name="Argonaut model", default=-1, min=-1,
        description="Argonaut level WADs: the model (0, 1, ...) to bring in as a skinned mesh, "
                    "with the animations that fit it; -1: the animations alone")

    def execute(self, context):
        try:
            arm, notes = trip.import_file(context, self.filepath, self.skeleton_filepath, self.argonaut_model)
        except trip.Failure as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for n in notes:
            level, text = n if isinstance(n, tuple) else ("WARNING", n)
            self.report({level}, text)
        self.report({"INFO"}, f"ganim: imported {arm.name} from {self.filepath}")
        return {"FINISHED"}


class EXPORT_ANIM_OT_ganim(bpy.types.Operator, ExportHelper):
    """Put the armature's edited actions back into the game file it came from, with ganim"""
    bl_idname = "export_anim.ganim"
    bl_label = "Export Game Animation"
    filename_ext = ""
    check_extension = None

    filter_glob: StringProperty(default=GAME_FILTER, options={"HIDDEN"})
    into_filepath: StringProperty(
        name="Into", subtype="FILE_PATH", default="",
        description="The original game file the actions go into; empty: the file the armature "
                    "was imported from (its ganim_source)")

    def invoke(self, context, event):
        # a new file beside the original: never the original itself
        try:
            source = trip.source_of(context)
        except trip.Failure:
            source = None
        if source and not self.filepath:
            stem, ext = os.path.splitext(source)
            self.filepath = stem + "_edited" + ext
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        try:
            notes = trip.export_file(context, self.filepath, self.into_filepath)
        except trip.Failure as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for n in notes:
            self.report({"WARNING"}, n)
        self.report({"INFO"}, f"ganim: wrote {self.filepath}")
        return {"FINISHED"}


def menu_import(self, context):
    self.layout.operator(IMPORT_ANIM_OT_ganim.bl_idname, text="Game animation (ganim)")


def menu_export(self, context):
    self.layout.operator(EXPORT_ANIM_OT_ganim.bl_idname, text="Game animation (ganim)")


CLASSES = (IMPORT_ANIM_OT_ganim, EXPORT_ANIM_OT_ganim)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)
    bpy.types.TOPBAR_MT_file_export.append(menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)

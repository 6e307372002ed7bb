// The bridge to ganim.wasm (web/ganim_web.c): files in, documents, poses and exports
// out. Knows nothing of the page; the Node test can use it as the page does.
import { MemoryFolder, WasiExit, wasiImports } from './wasi.js';

const EXPORT_KINDS = { glb: 0, gltf: 1, bvh: 2, json: 3 };
const FORMAT_COMPANION = 4; // GANIM_FORMAT_COMPANION
const BONE_HIDDEN = 1; // GANIM_BONE_HIDDEN
const BONE_SYNTH = 2; // GANIM_BONE_SYNTH
const encoder = new TextEncoder();
const utf8 = new TextDecoder();
// Names from game files are bytes in the game's code page: read as Latin-1, as ganim's
// JSON writes them (docs/dump-format.md).
const latin1 = new TextDecoder('latin1');

export class GanimError extends Error {
    constructor(message, offset) {
        super(message);
        this.name = 'GanimError';
        this.offset = offset;
    }
}

// The file name without its extension, as `ganim convert` names its outputs.
export function stemOf(name) {
    const dot = name.lastIndexOf('.');
    return dot > 0 ? name.slice(0, dot) : name;
}

export class Ganim {
    // `source`: the module's bytes (ArrayBuffer) or a Response (fetch) to compile.
    static async load(source) {
        const module =
            source instanceof ArrayBuffer || ArrayBuffer.isView(source)
                ? await WebAssembly.compile(source)
                : await WebAssembly.compileStreaming(source);
        const g = new Ganim(module, new MemoryFolder());
        await g.start();
        return g;
    }

    constructor(module, folder) {
        this.module = module;
        this.folder = folder;
        this.x = null;
        this.broken = false;
    }

    // A fresh instance of the module, on the same folder: at load, and after the module
    // trapped (a bug: its memory can no longer be trusted, and every document in it is
    // gone).
    async start() {
        let instance = null;
        const imports = { wasi_snapshot_preview1: wasiImports(this.folder, () => instance.exports.memory) };
        instance = await WebAssembly.instantiate(this.module, imports);
        instance.exports._initialize();
        this.x = instance.exports;
        this.err = this.x.gw_error_new();
        this.broken = false;
        this.generation = (this.generation || 0) + 1;
    }

    call(fn) {
        if (this.broken) throw new GanimError('ganim is restarting after an internal failure: try again', -1);
        try {
            return fn();
        } catch (e) {
            if (e instanceof WasiExit) throw new GanimError(`ganim stopped (${e.message})`, -1);
            if (e instanceof WebAssembly.RuntimeError) {
                this.broken = true;
                const restarted = this.start();
                this.restarting = restarted;
                throw new GanimError(`ganim failed inside (${e.message}); it has been restarted (please report the file)`, -1);
            }
            throw e;
        }
    }

    // Frees what the page allocated in the module (nothing after a trap: that memory is
    // being replaced).
    free(ptr) {
        if (!this.broken) this.x.gw_free(ptr);
    }

    version() {
        return this.cString(this.x.gw_version());
    }

    bytes(ptr, size) {
        return new Uint8Array(this.x.memory.buffer, ptr, size);
    }

    cString(ptr, decoder = utf8) {
        if (!ptr) return null;
        const mem = new Uint8Array(this.x.memory.buffer);
        let end = ptr;
        while (mem[end]) end++;
        return decoder.decode(mem.subarray(ptr, end));
    }

    // A NUL-terminated copy of `text` in the module's memory (free with gw_free).
    putString(text) {
        const b = encoder.encode(text);
        const ptr = this.call(() => this.x.gw_alloc(b.length + 1));
        this.bytes(ptr, b.length + 1).set([...b, 0]);
        return ptr;
    }

    error() {
        return new GanimError(this.cString(this.x.gw_error_message(this.err)), this.x.gw_error_offset(this.err));
    }

    // The format that recognises a file of the folder ({name, companion}), or null.
    probe(name) {
        const path = this.putString(name);
        const flags = this.x.gw_alloc(4);
        try {
            const fmt = this.cString(this.call(() => this.x.gw_probe_file(path, flags)));
            const f = new DataView(this.x.memory.buffer).getUint32(flags, true);
            return fmt ? { name: fmt, companion: (f & FORMAT_COMPANION) !== 0 } : null;
        } finally {
            this.free(path);
            this.free(flags);
        }
    }

    // Puts `files` ([{name, bytes}]) in the module's folder, replacing what was there,
    // keeps what probe() says of each in `probes`, and says which of them to open: the animations first, then skeleton files alone,
    // then what no format recognises (opening it gives ganim's error).
    setFiles(files) {
        this.folder.set(files.map((f) => [f.name, f.bytes]));
        this.probes = new Map(files.map((f) => [f.name, this.probe(f.name)]));
        const ranked = files.map((f) => {
            const p = this.probes.get(f.name);
            return { name: f.name, format: p ? p.name : null, rank: !p ? 2 : p.companion ? 1 : 0 };
        });
        const best = Math.min(...ranked.map((r) => r.rank));
        return ranked.filter((r) => r.rank === best || r.rank === 0);
    }

    // Reads file `name` of the folder as the command line does; `settings`: reader
    // options as {name: value}. Throws a GanimError with ganim's sentence.
    open(name, settings = {}) {
        const path = this.putString(name);
        const set = this.putString(Object.entries(settings).map(([k, v]) => `${k}=${v}`).join('\n'));
        try {
            const doc = this.call(() => this.x.gw_open(path, set, this.err));
            if (!doc) throw this.error();
            return new GanimDoc(this, doc, name);
        } finally {
            this.free(path);
            this.free(set);
        }
    }

    // The reader options of a format: [{name, values, help, unset, type}].
    readerOptions(format) {
        const f = this.putString(format);
        try {
            const list = [];
            for (let i = 0, n = this.x.gw_option_count(f); i < n; i++) {
                const field = (k) => this.cString(this.x.gw_option_field(f, i, k));
                list.push({ name: field(0), values: field(1), help: field(2), unset: field(3), type: field(4) });
            }
            return list;
        } finally {
            this.free(f);
        }
    }

    // Runs `fn(buffer)` with a fresh ganim_buffer and returns its bytes (copied).
    withBuffers(count, fn) {
        const bufs = Array.from({ length: count }, () => this.x.gw_buffer_new());
        try {
            const code = this.call(() => fn(...bufs));
            if (code !== 0) throw this.error();
            return bufs.map((b) => this.bytes(this.x.gw_buffer_data(b), this.x.gw_buffer_size(b)).slice());
        } finally {
            for (const b of bufs) {
                if (this.broken) break;
                this.x.gw_buffer_clear(b);
                this.x.gw_free(b);
            }
        }
    }
}

export class GanimDoc {
    constructor(ganim, ptr, name) {
        this.g = ganim;
        this.ptr = ptr;
        this.name = name;
        this.generation = ganim.generation;
        // ARCHIVE:MEMBER is named after the member, as the tool names its outputs.
        const colon = name.lastIndexOf(':');
        this.inputName = colon > 0 && !ganim.folder.files.has(name) ? name.slice(colon + 1) : name;
        const x = ganim.x;
        const [info] = ganim.withBuffers(1, (b) => x.gw_info_json(ptr, b, ganim.err));
        this.infoText = utf8.decode(info);
        this.info = JSON.parse(this.infoText);
        this.probeScore = x.gw_probe_score(ptr);
        this.boneCount = x.gw_bone_count(ptr);
        this.bones = [];
        for (let i = 0; i < this.boneCount; i++) {
            this.bones.push({
                name: ganim.cString(x.gw_bone_name(ptr, i), latin1),
                parent: x.gw_bone_parent(ptr, i),
                hidden: (x.gw_bone_flags(ptr, i) & BONE_HIDDEN) !== 0,
                madeUp: (x.gw_bone_flags(ptr, i) & BONE_SYNTH) !== 0,
            });
        }
        this.clips = this.info.clips.map((c, i) => ({
            name: c.name,
            kind: c.kind,
            fps: c.fps,
            frames: c.frame_count,
            duration: c.duration,
            partner: x.gw_clip_partner(ptr, i) - 1,
            trackBones: Array.from({ length: x.gw_clip_track_count(ptr, i) }, (_, t) => x.gw_clip_track_bone(ptr, i, t)),
        }));
        const q = x.gw_alloc(16);
        x.gw_axes_to_y_up(ptr, q);
        this.toYUp = Array.from(new Float32Array(x.memory.buffer, q, 4));
        x.gw_free(q);
    }

    // What `window.ganimViewer.open` resolves with.
    summary() {
        return {
            format: this.info.format,
            bones: this.bones.map((b) => ({ name: b.name, parent: b.parent })),
            clips: this.clips.map((c) => ({ name: c.name, fps: c.fps, frames: c.frames, kind: c.kind })),
            warnings: this.info.warnings.map((w) => w.message),
        };
    }

    // 10 floats per bone (qx qy qz qw tx ty tz sx sy sz), parent-local: ganim_clip_sample
    // of clip `clip` at `time` seconds. With `visible`, a Uint8Array of one byte per bone
    // is filled too.
    // The document's module instance, or a GanimError when it was restarted since.
    live() {
        if (this.g.broken || this.g.generation !== this.generation || !this.ptr) throw new GanimError('this file is no longer open: open it again', -1);
        return this.g.x;
    }

    pose(clip, time, visible = null) {
        const x = this.live();
        const n = this.boneCount;
        const out = x.gw_alloc(n * 40);
        const vis = x.gw_alloc(n);
        try {
            const code = this.g.call(() => x.gw_sample(this.ptr, clip, time, out, vis, this.g.err));
            if (code !== 0) throw this.g.error();
            if (visible) visible.set(this.g.bytes(vis, n));
            return new Float32Array(x.memory.buffer, out, n * 10).slice();
        } finally {
            this.g.free(out);
            this.g.free(vis);
        }
    }

    // The rest pose, laid out as pose().
    rest() {
        const x = this.live();
        const out = x.gw_alloc(this.boneCount * 40);
        x.gw_rest(this.ptr, out);
        const r = new Float32Array(x.memory.buffer, out, this.boneCount * 10).slice();
        x.gw_free(out);
        return r;
    }

    // The meshes (Argonaut models): [{positions, normals, bones, triangles}] copies.
    meshes() {
        const x = this.live();
        const list = [];
        for (let m = 0, n = x.gw_mesh_count(this.ptr); m < n; m++) {
            const v = x.gw_mesh_vertex_count(this.ptr, m);
            const t = x.gw_mesh_triangle_count(this.ptr, m);
            const buf = x.memory.buffer;
            const normals = x.gw_mesh_normals(this.ptr, m);
            list.push({
                positions: new Float32Array(buf, x.gw_mesh_positions(this.ptr, m), v * 3).slice(),
                normals: normals ? new Float32Array(buf, normals, v * 3).slice() : null,
                bones: new Uint32Array(buf, x.gw_mesh_bones(this.ptr, m), v).slice(),
                triangles: new Uint32Array(buf, x.gw_mesh_triangles(this.ptr, m), t * 3).slice(),
            });
        }
        return list;
    }

    // The files `ganim convert NAME -o STEM.<kind>` writes: [{name, bytes}] (a .gltf and
    // its .bin), and what the export could not carry (the tool's warnings) as notes.
    export(kind) {
        const k = EXPORT_KINDS[kind];
        if (k === undefined) throw new GanimError(`no export kind '${kind}' (glb, gltf, bvh or json)`, -1);
        this.live();
        const stem = stemOf(this.inputName);
        const s = this.g.putString(stem);
        try {
            const [out, bin, notes] = this.g.withBuffers(3, (o, b, n) => this.g.x.gw_export(this.ptr, k, s, o, b, n, this.g.err));
            const files = [{ name: `${stem}.${kind === 'json' ? 'json' : kind}`, bytes: out }];
            if (kind === 'gltf') files.push({ name: `${stem}.bin`, bytes: bin });
            return { files, notes: utf8.decode(notes).split('\n').filter((l) => l) };
        } finally {
            this.g.free(s);
        }
    }

    close() {
        if (this.ptr && !this.g.broken && this.g.generation === this.generation) this.g.x.gw_close(this.ptr);
        this.ptr = 0;
    }
}

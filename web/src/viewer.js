// The page: files in (input and drag-and-drop), the clip list, the bone tree, the info
// panel, the timeline, downloads, and window.ganimViewer, the test hook (docs/viewer.md).
import { Ganim, GanimError, stemOf } from './ganim.js';
import { Scene } from './scene.js';

const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
    const e = Object.assign(document.createElement(tag), props);
    for (const c of children) e.append(c);
    return e;
};

class Viewer {
    constructor(ganim) {
        this.g = ganim;
        this.scene = new Scene($('canvas'));
        this.files = []; // [{name, bytes}] in the module's folder
        this.choices = []; // what setFiles ranked
        this.doc = null;
        this.settings = {};
        this.clip = -1;
        this.time = 0;
        this.playing = false;
        this.speed = 1;
        this.last = 0;
        if (!this.scene.renderer) $('empty').textContent = 'This browser gives the page no WebGL: no 3D view. Files still open, and the information and downloads work.';
        this.wire();
        requestAnimationFrame((t) => this.tick(t));
    }

    wire() {
        $('files').addEventListener('change', (e) => {
            const list = [...e.target.files];
            e.target.value = '';
            if (list.length) this.openFiles(list).catch((e) => this.showError(e));
        });
        addEventListener('dragover', (e) => {
            e.preventDefault();
            document.body.classList.add('dragging');
        });
        addEventListener('dragleave', (e) => {
            if (!e.relatedTarget) document.body.classList.remove('dragging');
        });
        addEventListener('drop', (e) => {
            e.preventDefault();
            document.body.classList.remove('dragging');
            const list = [...(e.dataTransfer ? e.dataTransfer.files : [])];
            if (list.length) this.openFiles(list).catch((e) => this.showError(e));
        });
        $('play').addEventListener('click', () => (this.playing ? this.pause() : this.play()));
        $('time').addEventListener('input', (e) => this.seek(Number(e.target.value)));
        $('speed').addEventListener('change', (e) => this.setSpeed(Number(e.target.value)));
        $('error-close').addEventListener('click', () => this.showError(null));
        for (const kind of ['glb', 'gltf', 'bvh', 'json']) $(`dl-${kind}`).addEventListener('click', () => this.download(kind));
        $('reread').addEventListener('click', (e) => {
            e.preventDefault();
            this.reread();
        });
        $('options').addEventListener('submit', (e) => {
            e.preventDefault();
            this.reread();
        });
        addEventListener('keydown', (e) => {
            if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
            if (e.code === 'Space') {
                e.preventDefault();
                this.playing ? this.pause() : this.play();
            } else if (this.doc && this.clip >= 0 && ['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.code)) {
                // A frame back or on (from the frame shown), the start, the end.
                e.preventDefault();
                this.pause();
                const fps = this.doc.clips[this.clip].fps;
                const frame = Math.round(this.time * fps);
                const to = { ArrowLeft: (frame - 1) / fps, ArrowRight: (frame + 1) / fps, Home: 0, End: this.duration() }[e.code];
                this.seek(to);
            }
        });
    }

    showError(err) {
        const box = $('error');
        box.hidden = !err;
        if (!err) return;
        const at = err.offset >= 0 ? ` (at byte ${err.offset}, 0x${err.offset.toString(16)})` : '';
        $('error-text').textContent = `${err.file ? err.file + ': ' : ''}${err.message}${at}`;
    }

    note(text) {
        $('status').textContent = text;
    }

    // Opens a set of files the user gave at once: the animation, its companion, ...
    async openFiles(fileList, settings = {}) {
        if (this.g.restarting) await this.g.restarting;
        if (!fileList.length) throw new GanimError('no file given', -1);
        const read = async (f) => {
            try {
                return { name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) };
            } catch (e) {
                const err = new GanimError(`cannot read it (${e.message}): a folder cannot be dropped, only files`, -1);
                err.file = f.name;
                throw err;
            }
        };
        const files = await Promise.all(fileList.map(read));
        return this.openSet(files, settings);
    }

    openSet(files, settings = {}) {
        const before = { files: this.files, choices: this.choices, archives: this.archives };
        this.choices = this.g.setFiles(files);
        this.files = files;
        this.archives = new Map();
        try {
            const summary = this.openName(this.choices[0].name, settings);
            this.renderFiles();
            return summary;
        } catch (e) {
            // The page keeps what it showed: the folder goes back to the files it came from.
            this.files = before.files;
            this.choices = before.choices;
            this.archives = before.archives;
            this.g.setFiles(this.files);
            throw e;
        }
    }

    // Reads file `name` of the folder (with reader options `settings`) and shows it.
    openName(name, settings) {
        let doc;
        const t0 = performance.now();
        try {
            doc = this.g.open(name, settings);
        } catch (e) {
            const err = e instanceof GanimError ? e : new GanimError(String(e.message || e), -1);
            err.file = name;
            if (this.doc && this.g.generation !== this.doc.generation) this.forget();
            this.showError(err);
            this.note(`${name}: not opened`);
            throw err;
        }
        if (this.doc) this.doc.close();
        this.doc = doc;
        if (!this.archives) this.archives = new Map();
        if (doc.info.native && Array.isArray(doc.info.native.entries)) this.archives.set(name, doc.info.native.entries.length ? doc.info.native : null);
        this.settings = settings;
        this.showError(null);
        this.pause();
        this.scene.build(doc.bones, doc.toYUp, doc.rest(), doc.meshes());
        const first = doc.clips.findIndex((c) => c.kind === 'animation');
        this.clip = -1;
        this.renderClips();
        this.renderBones();
        this.renderInfo();
        this.renderOptions();
        this.renderFiles();
        if (first >= 0) this.select(first);
        else this.showPose();
        // The view holds the first clip whole: its pose at a few times.
        const poses = [];
        if (first >= 0) {
            const c = doc.clips[first];
            const d = c.frames > 1 ? (c.frames - 1) / c.fps : 0;
            for (let i = 0; i <= 8; i++) poses.push(doc.pose(first, (d * i) / 8));
        }
        this.scene.frame(poses);
        $('empty').hidden = !!this.scene.renderer;
        const ms = (performance.now() - t0).toFixed(0);
        this.note(`${name}: ${doc.info.format}, ${doc.boneCount} bones, ${doc.clips.length} clip${doc.clips.length === 1 ? '' : 's'} (${ms} ms)`);
        return doc.summary();
    }

    // After ganim was restarted, the document shown is gone: show nothing.
    forget() {
        this.doc = null;
        this.clip = -1;
        this.pause();
        this.scene.clear();
        this.scene.render();
        for (const id of ['clip-list', 'bone-tree', 'info', 'clip-info', 'options']) $(id).replaceChildren();
        $('empty').hidden = false;
    }

    reread() {
        if (!this.doc) return;
        const settings = {};
        for (const input of $('options').querySelectorAll('[data-option]')) {
            if (input.value !== '') settings[input.dataset.option] = input.value;
        }
        try {
            this.openName(this.doc.name, settings);
        } catch {
            /* shown */
        }
    }

    renderFiles() {
        const list = $('file-list');
        list.replaceChildren();
        const openable = new Set(this.choices.map((c) => c.name));
        for (const f of this.files) {
            const probe = this.g.probes.get(f.name);
            const item = el('li', { title: probe ? probe.name : 'not a file ganim recognises (read by the file that names it, or not at all)' });
            item.append(el('span', { textContent: f.name, className: 'name' }));
            item.append(el('span', { className: 'tag', textContent: probe ? (probe.companion ? `${probe.name}, skeleton` : probe.name) : 'data' }));
            if (this.doc && f.name === this.doc.name) item.classList.add('current');
            if (openable.has(f.name) || probe) {
                item.classList.add('openable');
                item.addEventListener('click', () => {
                    try {
                        this.openName(f.name, {});
                    } catch {
                        /* shown */
                    }
                });
            }
            list.append(item);
            for (const member of this.members(f.name)) {
                const path = `${f.name}:${member}`;
                const sub = el('li', { className: 'openable member', title: `${path}: a level inside the archive` });
                sub.append(el('span', { className: 'name', textContent: `↳ ${member}` }), el('span', { className: 'tag', textContent: 'in the archive' }));
                if (this.doc && this.doc.name === path) sub.classList.add('current');
                sub.addEventListener('click', () => {
                    try {
                        this.openName(path, {});
                    } catch {
                        /* shown */
                    }
                });
                list.append(sub);
            }
        }
    }

    // The files an archive lists that ganim reads as ARCHIVE:MEMBER (its details name
    // them), once the archive has been opened.
    members(name) {
        const native = this.archives && this.archives.get(name);
        if (!native || !Array.isArray(native.entries)) return [];
        return native.entries.filter((e) => e && e.wad && typeof e.name === 'string').map((e) => e.name);
    }

    renderClips() {
        const list = $('clip-list');
        list.replaceChildren();
        this.doc.clips.forEach((c, i) => {
            const name = c.name || (this.doc.clips.length === 1 ? stemOf(this.doc.name) : '(unnamed)');
            const item = el('li', { className: c.kind === 'animation' ? 'openable' : 'opaque' });
            item.dataset.clip = i;
            item.append(el('span', { className: 'index', textContent: String(i) }), el('span', { className: 'name', textContent: name }));
            const what = c.kind === 'animation' ? `${c.frames} f, ${+c.fps.toFixed(3)} fps` : 'opaque slot';
            item.append(el('span', { className: 'tag', textContent: what + (c.partner >= 0 ? ` + ${c.partner}` : '') }));
            if (c.kind === 'animation') item.addEventListener('click', () => this.select(i));
            list.append(item);
        });
        if (!this.doc.clips.length) list.append(el('li', { className: 'empty', textContent: 'no clips: the skeleton at rest' }));
    }

    renderBones() {
        const tree = $('bone-tree');
        tree.replaceChildren();
        const items = this.doc.bones.map((b, i) => {
            const li = el('li');
            const label = el('span', { className: 'bone', textContent: b.name || `(bone ${i})`, title: `bone ${i}, parent ${b.parent}` });
            if (b.hidden) label.classList.add('hidden-bone');
            label.addEventListener('click', () => {
                for (const s of tree.querySelectorAll('.selected')) s.classList.remove('selected');
                const again = this.scene.selected === i;
                if (!again) label.classList.add('selected');
                this.scene.select(again ? -1 : i);
            });
            li.append(label);
            return li;
        });
        this.doc.bones.forEach((b, i) => {
            if (b.parent < 0) return tree.append(items[i]);
            const parent = items[b.parent];
            let ul = parent.querySelector(':scope > ul');
            if (!ul) parent.append((ul = el('ul')));
            ul.append(items[i]);
        });
        $('bone-count').textContent = `(${this.doc.bones.length})`;
    }

    renderInfo() {
        const info = this.doc.info;
        const box = $('info');
        box.replaceChildren();
        const dl = el('dl');
        const row = (k, v) => dl.append(el('dt', { textContent: k }), el('dd', { textContent: v }));
        row('file', this.doc.name);
        row('format', `${info.format ?? '?'}, probe score ${this.doc.probeScore}`);
        row('axes', info.axes + (info.axes !== 'y-up' ? ' (shown turned to y-up)' : ''));
        if (info.skeleton) {
            const made = this.doc.bones.length > 0 && this.doc.bones.every((b) => b.madeUp);
            row('skeleton', `${info.skeleton.bone_count} bones${info.skeleton.file ? ` from ${info.skeleton.file}` : ''}${made ? ' (made up: no skeleton file)' : ''}`);
        } else row('skeleton', 'none');
        if (info.meshes && info.meshes.length) row('meshes', info.meshes.map((m) => `${m.vertex_count} vertices, ${m.triangle_count} triangles`).join('; '));
        else if (info.native && Array.isArray(info.native.models) && info.native.models.length) {
            row('models', `${info.native.models.length} in the file: choose one under Reader options to see it as a mesh`);
        }
        const anims = info.clips.filter((c) => c.kind === 'animation').length;
        row('clips', `${info.clip_count}${anims !== info.clip_count ? ` (${anims} animations)` : ''}`);
        box.append(dl);
        if (info.native) box.append(details('format details', info.native, true));
        const warn = el('div', { className: 'warnings' });
        const count = info.warnings.length + info.warnings_dropped;
        warn.append(el('h3', { textContent: `warnings: ${count}` }));
        const ul = el('ul');
        for (const w of info.warnings) ul.append(el('li', { textContent: w.message + (w.offset != null ? ` (at byte 0x${w.offset.toString(16)})` : '') }));
        if (info.warnings_dropped) ul.append(el('li', { textContent: `and ${info.warnings_dropped} more` }));
        warn.append(ul);
        box.append(warn);
        const raw = el('details', {}, el('summary', { textContent: 'ganim info --json' }), el('pre', { textContent: this.doc.infoText }));
        box.append(raw);
        this.renderClipInfo();
    }

    renderClipInfo() {
        const box = $('clip-info');
        box.replaceChildren();
        const c = this.doc && this.clip >= 0 ? this.doc.info.clips[this.clip] : null;
        if (!c) return;
        const dl = el('dl');
        const row = (k, v) => dl.append(el('dt', { textContent: k }), el('dd', { textContent: v }));
        row('clip', `${c.index}${c.name ? ` "${c.name}"` : ''}`);
        row('timing', `${c.fps} fps, ${c.frame_count} frames, ${c.duration.toFixed(3)} s`);
        row('tracks', `${c.track_count}; animated ${c.animated.rotation} rotation, ${c.animated.translation} translation, ${c.animated.scale} scale`);
        if (c.rotation_interp !== 'slerp') row('rotations', c.rotation_interp);
        box.append(dl);
        if (c.native) box.append(details('clip details', c.native, false));
    }

    renderOptions() {
        const form = $('options');
        form.replaceChildren();
        const options = this.doc.info.format ? this.g.readerOptions(this.doc.info.format) : [];
        $('options-box').hidden = options.length === 0;
        const models = this.doc.info.native && Array.isArray(this.doc.info.native.models) ? this.doc.info.native.models : null;
        for (const o of options) {
            let input;
            if (o.type === 'int' && o.name.endsWith('.model') && models) {
                // A level's models by what they are (the format's details list them).
                const label = (m, i) => `${m.index ?? i}: ${m.vertices ?? '?'} vertices, ${m.groups ?? '?'} groups` + (m.fitting_animations ? `, fits clips ${m.fitting_animations.join(' ') || 'none'}` : '');
                input = el('select', {}, el('option', { value: '', textContent: '(no model: the skeleton alone)' }), ...models.map((m, i) => el('option', { value: String(m.index ?? i), textContent: label(m, i) })));
            } else if (o.type === 'choice') {
                input = el('select', {}, el('option', { value: '', textContent: '(unset)' }), ...o.values.split('|').map((v) => el('option', { value: v, textContent: v })));
            } else {
                input = el('input', { type: o.type === 'int' ? 'number' : 'text', placeholder: o.values });
            }
            input.dataset.option = o.name;
            input.value = this.settings[o.name] ?? '';
            if (input.tagName === 'SELECT') input.addEventListener('change', () => this.reread());
            form.append(el('label', { title: `${o.help}\nunset: ${o.unset}` }, el('span', { textContent: o.name }), input));
            form.append(el('p', { className: 'help', textContent: o.help }));
        }
    }

    select(clip) {
        if (!this.doc || !this.doc.clips[clip] || this.doc.clips[clip].kind !== 'animation') {
            throw new GanimError(`no animation clip ${clip}`, -1);
        }
        this.clip = clip;
        this.time = 0;
        const c = this.doc.clips[clip];
        const slider = $('time');
        slider.max = String(this.duration());
        slider.step = String(1 / (c.fps * 8));
        for (const li of $('clip-list').children) li.classList.toggle('current', Number(li.dataset.clip) === clip);
        this.renderClipInfo();
        this.showPose();
    }

    duration() {
        const c = this.doc && this.clip >= 0 ? this.doc.clips[this.clip] : null;
        return c && c.frames > 1 ? (c.frames - 1) / c.fps : 0;
    }

    seek(time) {
        this.time = Math.min(Math.max(Number(time) || 0, 0), this.duration());
        this.showPose();
    }

    play() {
        if (!this.doc || this.clip < 0) return;
        if (this.time >= this.duration()) this.time = 0;
        this.playing = true;
        this.last = performance.now();
        $('play').textContent = 'Pause';
    }

    pause() {
        this.playing = false;
        $('play').textContent = 'Play';
    }

    setSpeed(speed) {
        if (!(speed > 0)) return;
        this.speed = speed;
        const sel = $('speed');
        if (![...sel.options].some((o) => Number(o.value) === speed)) sel.append(el('option', { value: String(speed), textContent: `${speed}×` }));
        sel.value = String(speed);
    }

    // The pose shown: the clip's, with its partner's bones (FF7's weapon) from the partner.
    showPose() {
        try {
            this.drawPose();
        } catch (e) {
            this.pause();
            if (this.doc && this.g.generation !== this.doc.generation) this.forget();
            this.showError(e);
        }
    }

    drawPose() {
        const doc = this.doc;
        if (!doc) return;
        if (this.clip < 0) {
            this.scene.applyPose(doc.rest());
        } else {
            const visible = new Uint8Array(doc.boneCount);
            const pose = doc.pose(this.clip, this.time, visible);
            const p = doc.clips[this.clip].partner;
            if (p >= 0 && doc.clips[p].kind === 'animation') {
                const other = doc.pose(p, this.time);
                for (const b of doc.clips[p].trackBones) pose.set(other.subarray(b * 10, b * 10 + 10), b * 10);
            }
            this.scene.applyPose(pose, visible);
        }
        const c = this.clip >= 0 ? doc.clips[this.clip] : null;
        $('time').value = String(this.time);
        const frame = c ? this.time * c.fps : 0;
        $('time-text').textContent = c ? `${this.time.toFixed(3)} s / ${this.duration().toFixed(3)} s · frame ${frame.toFixed(frame % 1 ? 2 : 0)} of ${c.frames}` : 'no animation';
        this.scene.render();
    }

    tick(now) {
        if (this.playing) {
            const d = this.duration();
            this.time += ((now - this.last) / 1000) * this.speed;
            if (this.time > d) {
                if ($('loop').checked && d > 0) this.time %= d;
                else {
                    this.time = d;
                    this.pause();
                }
            }
            this.showPose();
        }
        this.last = now;
        requestAnimationFrame((t) => this.tick(t));
    }

    exportFiles(kind) {
        if (!this.doc) throw new GanimError('no file is open', -1);
        if (kind === 'bvh' && !this.doc.clips.some((c) => c.kind === 'animation')) throw new GanimError('no animation clip to write as BVH', -1);
        return this.doc.export(kind);
    }

    download(kind) {
        try {
            const { files, notes } = this.exportFiles(kind);
            for (const f of files) {
                const url = URL.createObjectURL(new Blob([f.bytes], { type: 'application/octet-stream' }));
                const a = el('a', { href: url, download: f.name });
                document.body.append(a);
                a.click();
                a.remove();
                setTimeout(() => URL.revokeObjectURL(url), 10000);
            }
            this.note(`${files.map((f) => `${f.name} (${f.bytes.length} bytes)`).join(', ')}${notes.length ? ` · ${notes.join(' · ')}` : ''}`);
        } catch (e) {
            this.showError(e);
        }
    }

    state() {
        return { clip: this.clip, time: this.time, playing: this.playing, speed: this.speed };
    }
}

// A format's details (info JSON "native") as nested lists.
function details(title, value, open) {
    const d = el('details', { open });
    d.append(el('summary', { textContent: title }));
    d.append(tree(value));
    return d;
}

function tree(value) {
    if (value === null || typeof value !== 'object') return el('span', { textContent: JSON.stringify(value) });
    const ul = el('ul', { className: 'tree' });
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    const shown = entries.slice(0, 200);
    for (const [k, v] of shown) {
        const li = el('li', {}, el('span', { className: 'key', textContent: `${k}: ` }));
        if (v !== null && typeof v === 'object' && JSON.stringify(v).length > 80) {
            const sub = el('details', {}, el('summary', { textContent: Array.isArray(v) ? `[${v.length}]` : '{…}' }), tree(v));
            li.append(sub);
        } else li.append(el('span', { textContent: JSON.stringify(v) }));
        ul.append(li);
    }
    if (entries.length > shown.length) ul.append(el('li', { textContent: `… ${entries.length - shown.length} more` }));
    return ul;
}

// window.ganimViewer: the test hook (docs/viewer.md).
let viewer = null;
const ready = (async () => {
    const t0 = performance.now();
    const response = await fetch(new URL('ganim.wasm', import.meta.url));
    if (!response.ok) throw new Error(`cannot load ganim.wasm (${response.status})`);
    const ganim = await Ganim.load(await response.arrayBuffer());
    const t1 = performance.now();
    viewer = new Viewer(ganim);
    const t2 = performance.now();
    // Milliseconds: the module fetched, compiled and started; the 3D view made; and the
    // whole, from the navigation's start to ready (docs/benchmarks.md).
    window.ganimViewer.timing = { wasm: t1 - t0, scene: t2 - t1, ready: t2 };
    $('status').textContent = `ready (ganim ${ganim.version()}, ${t2.toFixed(0)} ms): open or drop files`;
    document.body.classList.add('ready');
})();

const fail = (e) => {
    throw e instanceof Error ? e : new Error(String(e));
};

window.ganimViewer = {
    ready,
    async open(files, options = {}) {
        await ready;
        try {
            return await viewer.openFiles([...files], options);
        } catch (e) {
            return fail(e);
        }
    },
    pose(clip, time) {
        if (!viewer || !viewer.doc) throw new GanimError('no file is open', -1);
        return viewer.doc.pose(clip, time);
    },
    select(clip) {
        viewer.select(clip);
    },
    seek(time) {
        viewer.seek(time);
    },
    play() {
        viewer.play();
    },
    pause() {
        viewer.pause();
    },
    speed(x) {
        viewer.setSpeed(x);
    },
    state() {
        return viewer.state();
    },
    // The file shown and its summary (as open gives it), or null.
    current() {
        return viewer.doc ? { file: viewer.doc.name, summary: viewer.doc.summary() } : null;
    },
    async export(kind) {
        await ready;
        return viewer.exportFiles(kind).files[0].bytes;
    },
    async exportFiles(kind) {
        await ready;
        return viewer.exportFiles(kind);
    },
};

ready.catch((e) => {
    $('status').textContent = `ganim could not start: ${e.message}`;
    console.error(e);
});

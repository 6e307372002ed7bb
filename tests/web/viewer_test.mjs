// The viewer in a real browser: web/dist served on 127.0.0.1, headless Chromium driven
// by playwright-core, every check against the native tool and library (never against
// the page's own code). Run by tests/web/run.sh, which passes:
//   GANIM        the native ganim        POSE_NATIVE  tests/web/pose_native.c, built
//   DIST         web/dist                CASES        the cases, as JSON (run.sh)
//   OUT          where screenshots go    CHROMIUM     the browser (default /usr/bin/chromium)
// and GANIM_WEB_ONLY=substring keeps the cases whose id has it.
// For each case (one file set of every family): the files go in through the file input,
// a drop or window.ganimViewer.open; the page's summary must equal `ganim info --json`
// and `ganim dump`'s parents; pose() must equal the native ganim_clip_sample (1e-6) at
// several times; every export must be byte-identical to `ganim convert`'s; the canvas
// must change between two times of a moving clip; a truncated copy of the file must be
// refused with the CLI's message while the page goes on; and no console error appears.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '../../web/node_modules/playwright-core/index.mjs';

const env = (k, d) => process.env[k] || d || (() => { throw new Error(`viewer_test: ${k} is not set`); })();
const ganim = env('GANIM');
const poseNative = env('POSE_NATIVE');
const dist = env('DIST');
const outDir = env('OUT');
const only = process.env.GANIM_WEB_ONLY || '';
const cases = JSON.parse(env('CASES')).filter((c) => c.id.includes(only));
const TOLERANCE = 1e-6;

let passed = 0, failed = 0;
const pass = () => passed++;
const fail = (what) => {
    failed++;
    console.log(`FAIL ${what}`);
};
const check = (ok, what) => (ok ? pass() : fail(what));

// ---- a static server for web/dist ---------------------------------------------------
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.txt': 'text/plain' };
const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '') || 'index.html';
    const file = path.join(dist, rel);
    if (!file.startsWith(path.resolve(dist)) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
        res.writeHead(404);
        return res.end();
    }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

// ---- the native side -------------------------------------------------------------------
const run = (args, cwd) => spawnSync(ganim, args, { cwd, encoding: 'buffer', maxBuffer: 1 << 28 });
const infoJson = (c, name) => {
    const opts = Object.entries(c.options || {}).flatMap(([k, v]) => ['-O', `${k}=${v}`]);
    const r = run(['info', '--json', ...opts, name], c.dir);
    if (r.status !== 0) throw new Error(`ganim info ${name}: ${r.stderr}`);
    return JSON.parse(r.stdout.toString());
};
const dumpJson = (c, name) => {
    const opts = Object.entries(c.options || {}).flatMap(([k, v]) => ['-O', `${k}=${v}`]);
    const r = run(['dump', ...opts, name], c.dir);
    return r.status === 0 ? JSON.parse(r.stdout.toString()) : null;
};
const nativePoses = (c, name, clip, times) => {
    const opts = Object.entries(c.options || {}).map(([k, v]) => `${k}=${v}`);
    const text = execFileSync(poseNative, [name, ...opts, '--', String(clip), ...times.map(String)], { cwd: c.dir, encoding: 'utf8', maxBuffer: 1 << 28 });
    return text.trim().split('\n').map((l) => JSON.parse(l).map(Math.fround)); // %.9g: the same float32 once rounded to it
};
// The files `ganim convert NAME -o <tmp>/<stem>.<kind>` writes: {name: bytes}.
const cliExport = (c, name, kind) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ganim-web-'));
    const base = name.includes(':') ? name.slice(name.lastIndexOf(':') + 1) : name;
    const stem = base.lastIndexOf('.') > 0 ? base.slice(0, base.lastIndexOf('.')) : base;
    const opts = Object.entries(c.options || {}).flatMap(([k, v]) => ['-O', `${k}=${v}`]);
    const r = run(['convert', ...opts, name, '-o', path.join(tmp, `${stem}.${kind}`)], c.dir);
    const files = {};
    if (r.status === 0) for (const f of fs.readdirSync(tmp)) files[f] = fs.readFileSync(path.join(tmp, f));
    fs.rmSync(tmp, { recursive: true, force: true });
    return r.status === 0 ? files : null;
};

// ---- the browser -------------------------------------------------------------------------
const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--no-sandbox'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
const consoleErrors = [];
page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
page.on('pageerror', (e) => consoleErrors.push(`page error: ${e.message}`));
const t0 = Date.now();
await page.goto(url);
await page.evaluate(() => window.ganimViewer.ready);
const readyMs = Date.now() - t0;
const timing = await page.evaluate(() => window.ganimViewer.timing);
const ms = (v) => v.toFixed(0);
console.log(`viewer_test: page ready ${ms(timing.ready)} ms after navigation (ganim.wasm fetched, compiled and started in ${ms(timing.wasm)} ms, the 3D view in ${ms(timing.scene)} ms; ${readyMs} ms as the test saw it)`);

const b64 = (bytes) => Buffer.from(bytes).toString('base64');
// window.ganimViewer.open with File objects made in the page from `files` ({name, bytes}).
const hookOpen = (files, options = {}) =>
    page.evaluate(
        async ({ list, options }) => {
            const files = list.map((f) => new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name));
            try {
                return { summary: await window.ganimViewer.open(files, options) };
            } catch (e) {
                return { error: e.message };
            }
        },
        { list: files.map((f) => ({ name: f.name, data: b64(f.bytes) })), options },
    );
// Drops `files` on the page as a user's drag-and-drop does.
const drop = async (files) => {
    const dt = await page.evaluateHandle((list) => {
        const dt = new DataTransfer();
        for (const f of list) dt.items.add(new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name));
        return dt;
    }, files.map((f) => ({ name: f.name, data: b64(f.bytes) })));
    await page.dispatchEvent('#view', 'drop', { dataTransfer: dt });
};
const waitFor = async (fn, arg, what) => {
    try {
        await page.waitForFunction(fn, arg, { timeout: 10000 });
        return true;
    } catch {
        fail(`${what}: timed out`);
        return false;
    }
};
const canvasShot = async (file) => {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    return page.locator('#canvas').screenshot({ path: file });
};

const readFiles = (c) => c.files.map((n) => ({ name: n, bytes: fs.readFileSync(path.join(c.dir, n)) }));
const sameSummary = (c, name, summary) => {
    const info = infoJson(c, name);
    const dump = dumpJson(c, name);
    const where = `${c.id}: summary of ${name}`;
    check(summary.format === info.format, `${where}: format ${summary.format}, ganim info says ${info.format}`);
    const names = info.skeleton ? info.skeleton.names : [];
    check(JSON.stringify(summary.bones.map((b) => b.name)) === JSON.stringify(names), `${where}: bone names differ from ganim info's`);
    const parents = dump && dump.skeleton ? dump.skeleton.bones.map((b) => b.parent) : [];
    check(JSON.stringify(summary.bones.map((b) => b.parent)) === JSON.stringify(parents), `${where}: bone parents differ from ganim dump's`);
    const clips = info.clips.map((k) => ({ name: k.name, fps: k.fps, frames: k.frame_count }));
    check(JSON.stringify(summary.clips.map((k) => ({ name: k.name, fps: k.fps, frames: k.frames }))) === JSON.stringify(clips), `${where}: clips differ from ganim info's`);
    check(JSON.stringify(summary.warnings) === JSON.stringify(info.warnings.map((w) => w.message)), `${where}: warnings differ from ganim info's`);
    return info;
};

const comparePoses = async (c, name, summary) => {
    const anims = summary.clips.map((k, i) => [k, i]).filter(([k]) => k.kind === 'animation' && k.frames > 0);
    const picks = [...new Set([anims[0], anims[Math.floor(anims.length / 2)], anims[anims.length - 1]].filter(Boolean))];
    let compared = 0;
    for (const [clip, index] of picks) {
        const d = clip.frames > 1 ? (clip.frames - 1) / clip.fps : 0;
        const times = [0, d * 0.37, d / 2 + 1 / (3 * clip.fps), d, d + 1, -1];
        const native = nativePoses(c, name, index, times);
        const web = await page.evaluate(({ index, times }) => times.map((t) => Array.from(window.ganimViewer.pose(index, t))), { index, times });
        let worst = 0;
        let shape = native.length === web.length;
        for (let t = 0; shape && t < times.length; t++) {
            if (native[t].length !== web[t].length || native[t].length !== summary.bones.length * 10) shape = false;
            else for (let k = 0; k < native[t].length; k++) worst = Math.max(worst, Math.abs(native[t][k] - web[t][k]));
        }
        check(shape && worst <= TOLERANCE, `${c.id}: pose of clip ${index} differs from the native library's by ${shape ? worst : 'its shape'}`);
        compared += times.length;
    }
    return compared;
};

const compareExports = async (c, name) => {
    for (const kind of ['glb', 'gltf', 'bvh', 'json']) {
        const cli = cliExport(c, name, kind);
        const web = await page.evaluate(async (kind) => {
            try {
                const r = await window.ganimViewer.exportFiles(kind);
                return { files: r.files.map((f) => ({ name: f.name, data: btoa(Array.from(f.bytes, (b) => String.fromCharCode(b)).join('')) })) };
            } catch (e) {
                return { error: e.message };
            }
        }, kind);
        if (!cli) {
            check(!!web.error, `${c.id}: ganim convert refuses ${kind} but the page exported it`);
            continue;
        }
        if (web.error) {
            fail(`${c.id}: export ${kind} failed in the page: ${web.error}`);
            continue;
        }
        const names = web.files.map((f) => f.name).sort();
        check(JSON.stringify(names) === JSON.stringify(Object.keys(cli).sort()), `${c.id}: export ${kind} gives ${names}, ganim convert ${Object.keys(cli)}`);
        for (const f of web.files) {
            const same = cli[f.name] && Buffer.compare(cli[f.name], Buffer.from(f.data, 'base64')) === 0;
            check(same, `${c.id}: ${f.name} from the page is not byte-identical to ganim convert's`);
        }
        if (kind === 'glb') {
            const direct = await page.evaluate(async () => (await window.ganimViewer.export('glb')).length);
            check(cli[Object.keys(cli)[0]] && direct === cli[Object.keys(cli)[0]].length, `${c.id}: export('glb') is not the glb`);
        }
    }
};

// The canvas at two times of a clip that moves: the pixels must differ.
const compareFrames = async (c, summary) => {
    for (const [k, i] of summary.clips.map((k, i) => [k, i])) {
        if (k.kind !== 'animation' || k.frames < 2) continue;
        const d = (k.frames - 1) / k.fps;
        // The time of the clip's pose that differs most from its first.
        const t = await page.evaluate(({ i, d }) => {
            const a = window.ganimViewer.pose(i, 0);
            let best = -1, most = 1e-3;
            for (const t of [d / 2, d / 3, d / 4, d * 0.37, d]) {
                const b = window.ganimViewer.pose(i, t);
                const diff = Math.max(...a.map((v, j) => Math.abs(v - b[j])));
                if (diff > most) (best = t), (most = diff);
            }
            return best;
        }, { i, d });
        if (t < 0) continue;
        await page.evaluate((i) => window.ganimViewer.select(i), i);
        await page.evaluate(() => window.ganimViewer.seek(0));
        const a = await canvasShot(path.join(outDir, `${c.id}-clip${i}-start.png`));
        await page.evaluate((t) => window.ganimViewer.seek(t), t);
        const b = await canvasShot(path.join(outDir, `${c.id}-clip${i}-later.png`));
        const st = await page.evaluate(() => window.ganimViewer.state());
        check(st.clip === i && Math.abs(st.time - t) < 1e-9 && !st.playing, `${c.id}: state() after select/seek is ${JSON.stringify(st)}`);
        check(Buffer.compare(a, b) !== 0, `${c.id}: the canvas did not change between 0 s and ${t} s of clip ${i}`);
        return;
    }
    console.log(`viewer_test: ${c.id}: no clip moves: no canvas comparison`);
};

// A truncated copy of the file is refused with the tool's message; the page goes on.
const truncated = async (c, files) => {
    const main = files[0];
    if (main.bytes.length < 16) return;
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ganim-web-'));
    const cut = { name: main.name, bytes: main.bytes.subarray(0, Math.floor(main.bytes.length / 2)) };
    for (const f of [cut, ...files.slice(1)]) fs.writeFileSync(path.join(tmp, f.name), f.bytes);
    const cli = run(['info', main.name], tmp);
    fs.rmSync(tmp, { recursive: true, force: true });
    const r = await hookOpen([cut, ...files.slice(1)], c.options);
    if (cli.status === 0) {
        // Some files read as well cut in half (a BVH with fewer frames): then the page must read it too.
        check(!!r.summary, `${c.id}: the truncated file reads with ganim but the page refused it: ${r.error}`);
        return;
    }
    check(!!r.error && cli.stderr.toString().includes(r.error), `${c.id}: truncated file: the page says '${r.error}', ganim says '${cli.stderr.toString().trim()}'`);
    const banner = await page.evaluate(() => !document.getElementById('error').hidden && document.getElementById('error-text').textContent);
    check(typeof banner === 'string' && banner.includes(r.error), `${c.id}: truncated file: the error is not shown on the page`);
    await page.screenshot({ path: path.join(outDir, `${c.id}-truncated.png`) });
};

let poses = 0;
for (const [n, c] of cases.entries()) {
    const files = readFiles(c);
    const name = c.open || c.files[0];
    let summary;
    if (c.via === 'input') {
        await page.setInputFiles('#files', c.files.map((f) => path.join(c.dir, f)));
        if (!(await waitFor((name) => window.ganimViewer.current() && window.ganimViewer.current().file === name, name, `${c.id}: open through the file input`))) continue;
        summary = await page.evaluate(() => window.ganimViewer.current().summary);
    } else if (c.via === 'drop') {
        await drop(files);
        if (!(await waitFor((name) => window.ganimViewer.current() && window.ganimViewer.current().file === name, name, `${c.id}: open by drag-and-drop`))) continue;
        summary = await page.evaluate(() => window.ganimViewer.current().summary);
    } else {
        const r = await hookOpen(files, c.options);
        if (r.error) {
            fail(`${c.id}: ganimViewer.open refused ${name}: ${r.error}`);
            continue;
        }
        summary = r.summary;
    }
    if (c.member) {
        // An archive: open a level inside it as a user does, from the file list.
        await page.locator('#file-list li.member').first().click();
        const member = `${name}:${c.member}`;
        if (!(await waitFor((m) => window.ganimViewer.current().file === m, member, `${c.id}: open ${member}`))) continue;
        sameSummary(c, name, summary);
        summary = await page.evaluate(() => window.ganimViewer.current().summary);
        c.open = member;
    }
    const shown = c.open || name;
    sameSummary(c, shown, summary);
    poses += await comparePoses(c, shown, summary);
    await compareExports(c, shown);
    await compareFrames(c, summary);
    await page.screenshot({ path: path.join(outDir, `${c.id}.png`) });
    if (n === 0) {
        // The timeline plays, at the speed asked.
        await page.evaluate(() => {
            window.ganimViewer.speed(2);
            window.ganimViewer.seek(0);
            window.ganimViewer.play();
        });
        await page.waitForTimeout(300);
        const st = await page.evaluate(() => window.ganimViewer.state());
        await page.evaluate(() => window.ganimViewer.pause());
        check(st.playing && st.speed === 2 && st.time > 0, `${c.id}: play() at speed 2 gave ${JSON.stringify(st)}`);
        await page.evaluate(() => window.ganimViewer.speed(1));
        // The keys: two frames on, one back, then the end.
        await page.evaluate(() => window.ganimViewer.seek(0));
        await page.locator('#canvas').click();
        for (const key of ['ArrowRight', 'ArrowRight', 'ArrowLeft']) await page.keyboard.press(key);
        const fps = summary.clips[st.clip].fps;
        const stepped = await page.evaluate(() => window.ganimViewer.state().time);
        await page.keyboard.press('End');
        const end = await page.evaluate(() => window.ganimViewer.state().time);
        const frames = summary.clips[st.clip].frames;
        check(Math.abs(stepped - 1 / fps) < 1e-9 && Math.abs(end - (frames - 1) / fps) < 1e-9, `${c.id}: arrow keys gave ${stepped} s (want ${1 / fps}), End ${end} s`);
    }
    if (!c.member) await truncated(c, files);
    // After a refusal the page still opens files.
    if (!c.member) {
        const again = await hookOpen(files, c.options);
        check(!!again.summary && JSON.stringify(again.summary) === JSON.stringify(summary), `${c.id}: the file does not open again after a refused one`);
    }
}

check(consoleErrors.length === 0, `console errors: ${consoleErrors.join(' | ')}`);
await browser.close();
server.close();
fs.writeFileSync(path.join(outDir, 'timing.txt'), `ready_ms ${ms(timing.ready)}\nwasm_ms ${ms(timing.wasm)}\nscene_ms ${ms(timing.scene)}\n`);
console.log(`viewer_test: ${cases.length} cases, ${poses} poses compared; screenshots in ${outDir}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

// Every sample and fixture through the page's own bridge (web/src/ganim.js over
// ganim.wasm, in Node: the same module and JavaScript the page runs, without a browser),
// against the native tool. Run by tests/web/run.sh before the browser test, with
//   GANIM        the native ganim        POSE_NATIVE  tests/web/pose_native.c, built
//   WASM         ganim.wasm              FOLDERS      the folders, as a JSON array
// Each folder is the module's in-memory folder, as files dropped together are, and every
// file in it is opened: what ganim info refuses the bridge must refuse with the same
// message; otherwise `ganim info --json` must equal the bridge's text byte for byte, the
// first animation clip's pose at three times must equal the native ganim_clip_sample
// (1e-6), and every export (glb, gltf + bin, bvh, json) must be byte-identical to
// `ganim convert FILE -o STEM.<kind>`.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ganim, stemOf } from '../../web/src/ganim.js';

const ganim = process.env.GANIM;
const poseNative = process.env.POSE_NATIVE;
const folders = JSON.parse(process.env.FOLDERS);
const only = process.env.GANIM_WEB_ONLY || '';
const g = await Ganim.load(fs.readFileSync(process.env.WASM));

let passed = 0, failed = 0, files = 0;
const check = (ok, what) => {
    if (ok) passed++;
    else {
        failed++;
        console.log(`FAIL ${what}`);
    }
};
const skip = (n) => /\.(md|txt|py|mjs|expected\.json)$/i.test(n) || n.startsWith('.');

for (const dir of folders) {
    const names = fs.readdirSync(dir).filter((n) => !skip(n) && fs.statSync(path.join(dir, n)).isFile()).sort();
    g.setFiles(names.map((n) => ({ name: n, bytes: new Uint8Array(fs.readFileSync(path.join(dir, n))) })));
    for (const n of names) {
        if (only && !`${dir}/${n}`.includes(only)) continue;
        files++;
        const where = `${path.basename(dir)}/${n}`;
        const cli = spawnSync(ganim, ['info', '--json', n], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });
        let doc = null, error = null;
        try {
            doc = g.open(n);
        } catch (e) {
            error = e.message;
        }
        if (cli.status !== 0) {
            check(error !== null && cli.stderr.includes(error), `${where}: ganim refuses it ('${cli.stderr.trim()}'), the page says '${error ?? 'nothing'}'`);
            continue;
        }
        if (!doc) {
            check(false, `${where}: ganim reads it, the page refuses it: ${error}`);
            continue;
        }
        check(doc.infoText.trimEnd() === cli.stdout.trimEnd(), `${where}: ganim info --json differs from the page's`);

        const clip = doc.clips.findIndex((c) => c.kind === 'animation');
        if (clip >= 0 && doc.boneCount) {
            const c = doc.clips[clip];
            const d = c.frames > 1 ? (c.frames - 1) / c.fps : 0;
            const times = [0, d * 0.37, d];
            const native = execFileSync(poseNative, [n, '--', String(clip), ...times.map(String)], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 })
                .trim()
                .split('\n')
                .map((l) => JSON.parse(l).map(Math.fround)); // %.9g: the same float32 once rounded to it
            let worst = 0;
            times.forEach((t, i) => {
                const p = doc.pose(clip, t);
                if (p.length !== native[i].length) worst = Infinity;
                else p.forEach((v, k) => (worst = Math.max(worst, Math.abs(v - native[i][k]))));
            });
            check(worst <= 1e-6, `${where}: pose of clip ${clip} differs from the native library's by ${worst}`);
        }

        for (const kind of ['glb', 'gltf', 'bvh', 'json']) {
            const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ganim-web-'));
            const r = spawnSync(ganim, ['convert', n, '-o', path.join(tmp, `${stemOf(n)}.${kind}`)], { cwd: dir, encoding: 'utf8' });
            let web = null, webError = null;
            try {
                if (kind === 'bvh' && !doc.clips.some((k) => k.kind === 'animation')) throw new Error('no animation clip to write as BVH');
                web = doc.export(kind);
            } catch (e) {
                webError = e.message;
            }
            if (r.status !== 0) {
                check(webError !== null, `${where}: ganim convert refuses ${kind}, the page exports it`);
            } else if (!web) {
                check(false, `${where}: export ${kind} fails in the page: ${webError}`);
            } else {
                const written = fs.readdirSync(tmp).sort();
                check(JSON.stringify(web.files.map((f) => f.name).sort()) === JSON.stringify(written), `${where}: ${kind}: the page gives ${web.files.map((f) => f.name)}, ganim convert writes ${written}`);
                for (const f of web.files) {
                    const p = path.join(tmp, f.name);
                    check(fs.existsSync(p) && Buffer.compare(fs.readFileSync(p), Buffer.from(f.bytes)) === 0, `${where}: ${f.name} is not byte-identical to ganim convert's`);
                }
            }
            fs.rmSync(tmp, { recursive: true, force: true });
        }
        doc.close();
    }
}
console.log(`samples_test: ${files} files in ${folders.length} folders through web/src/ganim.js in Node`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

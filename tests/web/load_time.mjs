// The viewer's load time and the time to open files (docs/benchmarks.md):
//   make web && python3 -m http.server -d web/dist 8000 &
//   node tests/web/load_time.mjs http://127.0.0.1:8000/ [FILE[+COMPANION...]...]
// Seven loads, each in a fresh browser context: the median of window.ganimViewer.timing;
// then each file set given to the file input (until the page shows it), and 100 poses of
// its first animation clip.
import path from 'node:path';
import { chromium } from '../../web/node_modules/playwright-core/index.mjs';

const [url, ...sets] = process.argv.slice(2);
const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--no-sandbox'],
});
const rows = [];
for (let i = 0; i < 7; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(url);
    rows.push(await page.evaluate(async () => (await window.ganimViewer.ready, window.ganimViewer.timing)));
    await ctx.close();
}
const median = (k) => rows.map((r) => r[k]).sort((a, b) => a - b)[3].toFixed(0);
console.log(`ready ${median('ready')} ms (median of 7: ${rows.map((r) => r.ready.toFixed(0)).join(' ')}), wasm ${median('wasm')} ms, 3D view ${median('scene')} ms`);
const page = await browser.newPage();
await page.goto(url);
await page.evaluate(() => window.ganimViewer.ready);
for (const set of sets) {
    // As a user opens them: the file input, until the page shows the first file.
    const list = set.split('+');
    const name = path.basename(list[0]);
    const t0 = Date.now();
    await page.setInputFiles('#files', list);
    await page.waitForFunction((n) => window.ganimViewer.current() && window.ganimViewer.current().file === n, name, { polling: 'raf' });
    const open = Date.now() - t0;
    const r = await page.evaluate(() => {
        const s = window.ganimViewer.current().summary;
        const c = s.clips.findIndex((k) => k.kind === 'animation');
        if (c < 0) return { bones: s.bones.length };
        const k = s.clips[c];
        const t1 = performance.now();
        for (let i = 0; i < 100; i++) window.ganimViewer.pose(c, ((i / 100) * (k.frames - 1)) / k.fps);
        return { pose: (performance.now() - t1) / 100, bones: s.bones.length, frames: k.frames };
    });
    // The page's own figure (its status line): from the bytes in the page to the file shown.
    const own = (await page.textContent('#status')).match(/\((\d+) ms\)/);
    console.log(`${set}: shown ${open} ms after the file input got it, ${own ? own[1] : '?'} ms of it reading and showing (${r.bones} bones${r.frames ? `, ${r.frames} frames; a pose ${r.pose.toFixed(3)} ms` : ''})`);
}
await browser.close();

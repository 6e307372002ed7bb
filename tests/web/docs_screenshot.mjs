// The screenshot of docs/viewer.md (docs/images/viewer.png), from the project's own
// examples (examples/antenna*: made by tools/make_examples.c, no game data):
//   make web && python3 -m http.server -d web/dist 8000 &
//   node tests/web/docs_screenshot.mjs http://127.0.0.1:8000/ docs/images/viewer.png
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '../../web/node_modules/playwright-core/index.mjs';

const [url, out] = process.argv.slice(2);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--no-sandbox'],
});
const page = await browser.newPage({ viewport: { width: 1100, height: 620 } });
await page.goto(url);
await page.evaluate(() => window.ganimViewer.ready);
await page.setInputFiles('#files', ['antenna_spin_00.ala', 'antenna.alo'].map((f) => path.join(repo, 'examples', f)));
await page.waitForFunction(() => window.ganimViewer.current());
await page.evaluate(() => window.ganimViewer.seek(1.1));
await page.locator('.bone', { hasText: 'B_Dish' }).click();
await page.waitForTimeout(200);
await page.screenshot({ path: out });
await browser.close();

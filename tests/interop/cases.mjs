// The inputs of the interop test, from the format registry (nothing here names a
// format): for every readable format that is not a companion, the files its family's
// folders hold with one of its extensions: the real samples in TESTDATA/<family>/
// (when TESTDATA is not "-") and the project's own fixtures in tests/data/<family>/ and
// examples/. Prints one tab-separated line per input: id, family, input, kind
// ("sample" or "fixture"), output prefix.
// usage: node cases.mjs GANIM TESTDATA|- REPO OUTDIR
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const [ganim, data, repo, out] = process.argv.slice(2);
const formats = JSON.parse(execFileSync(ganim, ['formats', '--json'], { encoding: 'utf8' }));
const hasExt = (f, name) => f.extensions.some(e => name.toLowerCase().endsWith(e) && name.length > e.length);
const lines = [];
const seen = new Set();
let n = 0;
function add(f, dir, kind) {
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir).sort()) {
    const input = path.join(dir, name);
    if (name.startsWith('.') || !hasExt(f, name) || seen.has(input) || !fs.statSync(input).isFile()) continue;
    seen.add(input);
    n++;
    lines.push([`c${n}`, f.family, input, kind, path.join(out, `c${n}`)].join('\t'));
  }
}
for (const f of formats) {
  if (!f.read || f.companion) continue;
  if (data !== '-') add(f, path.join(data, f.family), 'sample');
  add(f, path.join(repo, 'tests', 'data', f.family), 'fixture');
  add(f, path.join(repo, 'examples'), 'fixture');
}
process.stdout.write(lines.join('\n') + (lines.length ? '\n' : ''));

// The inputs of the interop test, from the format registry (nothing here names a
// format): for every readable format that is not a companion, the files its family's
// folders hold with one of its extensions (or, when no format claims a file's extension,
// whose content its probe recognises): the real samples in TESTDATA/<family>/
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
// A file no format claims by extension is the format's when its probe picks it (as the
// tool picks the files of a folder: by extension, else by content).
const claimed = name => formats.some(f => hasExt(f, name)) || /\.(md|txt|json)$/i.test(name);
function infoOf(input) {
  try {
    return JSON.parse(execFileSync(ganim, ['info', '--json', '--no-companion', input],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch { return null; }
}
const probedAs = input => infoOf(input)?.format ?? null;
// A file with no skeleton and no clip (an archive's listing) has nothing a client could show.
const empty = input => { const i = infoOf(input); return i && !i.skeleton && i.clip_count === 0; };
const lines = [];
const seen = new Set();
let n = 0;
function add(f, dir, kind) {
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir).sort()) {
    const input = path.join(dir, name);
    if (name.startsWith('.') || seen.has(input) || !fs.statSync(input).isFile()) continue;
    if (!hasExt(f, name) && (claimed(name) || probedAs(input) !== f.name)) continue;
    if (empty(input)) continue;
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

// The Khronos glTF validator over many files in one process.
// usage: node validate.mjs FILE.glb|FILE.gltf ...
// A file passes with 0 errors and 0 warnings (infos and hints are allowed); every
// message of a failing file is printed. Ends with "N passed, N failed"; exit 1 on failure.
import fs from 'node:fs';
import path from 'node:path';
import validator from 'gltf-validator';

const SEVERITY = ['error', 'warning', 'info', 'hint'];
let passed = 0, failed = 0;
const totals = { errors: 0, warnings: 0, infos: 0, hints: 0 };
const codes = {}; // info and hint codes seen, for the summary

for (const file of process.argv.slice(2)) {
  let report;
  try {
    report = await validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {
      uri: path.basename(file),
      maxIssues: 0, // no limit: print everything
      externalResourceFunction: (uri) => new Promise((resolve, reject) =>
        fs.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)),
          (e, d) => (e ? reject(e.toString()) : resolve(new Uint8Array(d))))),
    });
  } catch (e) {
    failed++;
    console.log(`FAIL validate ${file}: the validator threw: ${e}`);
    continue;
  }
  const is = report.issues;
  totals.errors += is.numErrors; totals.warnings += is.numWarnings;
  totals.infos += is.numInfos; totals.hints += is.numHints;
  for (const m of is.messages) if (m.severity >= 2) codes[m.code] = (codes[m.code] ?? 0) + 1;
  const counts = `${is.numErrors} errors, ${is.numWarnings} warnings, ${is.numInfos} infos, ${is.numHints} hints`;
  if (is.numErrors === 0 && is.numWarnings === 0) {
    passed++;
    console.log(`PASS validate ${file}: ${counts}`);
  } else {
    failed++;
    console.log(`FAIL validate ${file}: ${counts}`);
    for (const m of is.messages)
      if (m.severity <= 1) console.log(`    ${SEVERITY[m.severity]} ${m.code} at ${m.pointer ?? m.offset ?? '?'}: ${m.message}`);
  }
}
console.log(`validator totals: ${totals.errors} errors, ${totals.warnings} warnings, ${totals.infos} infos, ${totals.hints} hints` +
  (Object.keys(codes).length ? ` (${Object.entries(codes).map(([c, k]) => `${c} x${k}`).join(', ')})` : ''));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

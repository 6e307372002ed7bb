// Helpers the families' expectation modules (tests/formats/<family>/expect.mjs) share.
import fs from 'node:fs';
import path from 'node:path';

const readmeCache = new Map();
// Rows of a README's markdown tables whose first cell is code: [cells...].
export function readmeRows(file) {
  if (!readmeCache.has(file)) {
    const rows = fs.readFileSync(file, 'utf8').split('\n').filter(l => l.startsWith('| `'))
      .map(l => l.split('|').slice(1, -1).map(c => c.trim().replace(/^`|`$/g, '')));
    readmeCache.set(file, rows);
  }
  return readmeCache.get(file);
}

export const baseLower = p => path.basename(p).toLowerCase();

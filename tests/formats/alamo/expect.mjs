// What the Alamo samples hold, from the test data's README (not from ganim): frames,
// fps and bone tracks of each .ALA, and the bone count of its model (.ALO).
// expectations(input, skeleton, data) -> { bones: number|null, clips: [{frames, fps}] }
import path from 'node:path';
import { baseLower, readmeRows } from '../../interop/expect_util.mjs';

export function expectations(input, skeleton, data) {
  const rows = readmeRows(path.join(data, 'alamo', 'README.md'));
  const row = rows.find(r => r[0].toLowerCase() === baseLower(input));
  if (!row) throw new Error(`alamo README has no row for ${path.basename(input)}`);
  const m = /(\d+) frames @ ([\d.]+) fps, (\d+) bone tracks/.exec(row[6]);
  if (!m) throw new Error(`alamo README: cannot read "${row[6]}"`);
  let bones = null;
  if (skeleton) {
    const srow = rows.find(r => r[0].toLowerCase() === baseLower(skeleton));
    const b = srow && /(\d+) bones/.exec(srow[6]);
    if (!b) throw new Error(`alamo README has no bone count for ${path.basename(skeleton)}`);
    bones = Number(b[1]);
  }
  return { bones, clips: [{ frames: Number(m[1]), fps: Number(m[2]) }] };
}

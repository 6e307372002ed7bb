// What the ACL samples hold, from the test data's README (not from ganim): tracks,
// frames and fps of each clip, the same for .acl, .civ (V1) and .v0.civ.
// expectations(input, skeleton, data) -> { bones: number|null, clips: [{frames, fps}] }
import path from 'node:path';
import { readmeRows } from '../../interop/expect_util.mjs';

export function expectations(input, skeleton, data) {
  const rows = readmeRows(path.join(data, 'acl', 'README.md'));
  const clip = path.basename(input).replace(/(\.v0)?\.civ$|\.acl$/i, '');
  const row = rows.find(r => r[0] === clip && /^\d+$/.test(r[4]));
  if (!row) throw new Error(`acl README has no row for ${clip}`);
  // columns: clip, ACL, ver, misc_packed, tracks, frames (container), num_samples, segments, fps
  return { bones: Number(row[4]), clips: [{ frames: Number(row[5]), fps: Number(row[8]) }] };
}

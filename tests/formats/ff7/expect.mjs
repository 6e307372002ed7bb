// What the FF7 samples hold, from the test data's expected JSON (not from ganim): the
// decoded frames of every animation entry, and the skeleton's bone count.
// expectations(input, skeleton, data) -> { bones: number|null, clips: [{frames, fps}] }
import fs from 'node:fs';

export function expectations(input, skeleton) {
  const exp = JSON.parse(fs.readFileSync(input.replace(/\.da$/i, '.expected.json'), 'utf8'));
  const clips = exp.entries.filter(e => e.kind === 'animation').map(e => ({ frames: e.frames_decoded, fps: exp.fps }));
  // ganim's model of an ff7 skeleton: "root" (rotation slot 0), the nBones bones, and
  // "weapon" when the skeleton has weapon animations (docs/formats/ff7-battle.md).
  let bones = null;
  if (skeleton) {
    const h = JSON.parse(fs.readFileSync(skeleton + '.expected.json', 'utf8')).header;
    bones = h.nBones + 1 + (h.nsWeaponsAnims ? 1 : 0);
  }
  return { bones, clips };
}

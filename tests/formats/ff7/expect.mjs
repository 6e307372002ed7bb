// What the FF7 samples hold, from the test data's expected JSON (not from ganim): the
// decoded frames of every animation entry (paired body and weapon entries as one), and the
// skeleton's bone count.
// expectations(input, skeleton, data) -> { bones: number|null, clips: [{frames, fps}] }
import fs from 'node:fs';

export function expectations(input, skeleton) {
  const exp = JSON.parse(fs.readFileSync(input.replace(/\.da$/i, '.expected.json'), 'utf8'));
  // With the skeleton, body animation i and weapon animation i (entry body_entries + i)
  // play together (the note, section 1.1): one animation as long as the longer of the
  // two. A weapon entry whose body slot is special stays on its own.
  const ents = exp.entries, nb = exp.body_entries ?? 0, nw = exp.weapon_entries ?? 0;
  const partner = i => {
    const w = ents[nb + i];
    return skeleton && i < nb && i < nw && ents[i].kind === 'animation' && w && w.kind === 'animation' ? w : null;
  };
  const clips = [];
  ents.forEach((e, i) => {
    if (e.kind !== 'animation') return;
    if (skeleton && i >= nb && i < nb + nw && partner(i - nb)) return; // inside body animation i - nb
    const w = partner(i);
    clips.push({ frames: Math.max(e.frames_decoded, w ? w.frames_decoded : 0), fps: exp.fps });
  });
  // ganim's model of an ff7 skeleton: "root" (rotation slot 0), the nBones bones, and
  // "weapon" when the skeleton has weapon animations (docs/formats/ff7-battle.md).
  let bones = null;
  if (skeleton) {
    const h = JSON.parse(fs.readFileSync(skeleton + '.expected.json', 'utf8')).header;
    bones = h.nBones + 1 + (h.nsWeaponsAnims ? 1 : 0);
  }
  return { bones, clips };
}

// What the Argonaut samples hold, from the test data (not from ganim): the frame and
// bone counts of every record, from NAME.expected.json for the level WADs and from the
// README's "Counts:" lines for the bare blocks. ganim's model: one clip per record at
// 30 fps (the files store no rate: docs/formats/argonaut.md), on a flat skeleton of as
// many bones as the largest record animates.
// expectations(input, skeleton, data) -> { bones: number|null, clips: [{frames, fps}] }
import fs from 'node:fs';
import path from 'node:path';

export function expectations(input, skeleton, data) {
  let records;
  const json = input.replace(/\.wad$/i, '.expected.json');
  if (json !== input && fs.existsSync(json)) {
    records = JSON.parse(fs.readFileSync(json, 'utf8')).animations
      .map(a => ({ frames: a.header.frame_count, bones: a.header.bone_count }));
  } else {
    const text = fs.readFileSync(path.join(data, 'argonaut', 'README.md'), 'utf8');
    const start = text.indexOf('### `' + path.basename(input) + '`');
    if (start < 0) throw new Error(`argonaut README has no section for ${path.basename(input)}`);
    const next = text.indexOf('\n### ', start + 4);
    const section = text.slice(start, next < 0 ? undefined : next);
    records = [...section.matchAll(/frame_count=(\d+)[^\n]*?bone_count=(\d+)/g)]
      .map(m => ({ frames: Number(m[1]), bones: Number(m[2]) }));
    if (!records.length) throw new Error(`argonaut README: no counts for ${path.basename(input)}`);
  }
  return {
    bones: Math.max(...records.map(r => r.bones)),
    clips: records.map(r => ({ frames: r.frames, fps: 30 })),
  };
}

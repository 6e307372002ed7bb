// The FF7 anchor of issue 23: kujata's battle animation loader (picklejar76/kujata,
// ff7-asset-loader/battle-animation-loader.js) decoding a battle pack under Node, timed
// the way bench_ganim times ganim's read: the file already in memory, best of ROUNDS.
// Nothing of kujata is kept in ganim: KUJATA_SRC names a checkout of it.
//
//   node kujata_anchor.cjs KUJATA_SRC PACK BONES_PLUS_ONE BODY_ANIMS [ROUNDS] [--dump]
//
// Prints one line: "kujata PACK: best B ms, median M ms over R rounds, V angle values".
// With --dump, also prints the first frame's angles of animation 0 (kujata's degrees),
// so a reader can check both decoders read the same numbers.
"use strict";
const fs = require("fs");
const path = require("path");

const [src, pack, bonesArg, bodyArg, roundsArg, dumpArg] = process.argv.slice(2);
if (!src || !pack || !bonesArg || !bodyArg) {
  console.error("usage: node kujata_anchor.cjs KUJATA_SRC PACK BONES_PLUS_ONE BODY_ANIMS [ROUNDS] [--dump]");
  process.exit(2);
}
const dir = path.join(src, "ff7-asset-loader");
const Loader = require(path.join(dir, "battle-animation-loader.js"));
const { FF7BinaryDataReader } = require(path.join(dir, "ff7-binary-data-reader.js"));

const buffer = fs.readFileSync(pack);
const bones = Number(bonesArg);
const body = Number(bodyArg);
const rounds = Number(roundsArg || 15);

// loadBattleAnimationPack without its readFileSync: the same calls on the same reader.
function decode() {
  const loader = new Loader();
  const r = new FF7BinaryDataReader(buffer);
  r.offset = 0;
  r.readUInt();
  const out = [];
  for (let ai = 0; ai < body; ai++) out.push(loader.readBattleAnimation(r, r.offset, bones, false));
  return out;
}

const log = console.log;
console.log = () => {}; // the loader logs on odd input; the timing must not include it
let anims = decode(); // warm-up (and the values counted below)
const times = [];
for (let i = 0; i < rounds; i++) {
  const t0 = process.hrtime.bigint();
  anims = decode();
  const t1 = process.hrtime.bigint();
  times.push(Number(t1 - t0) / 1e6);
}
console.log = log;
times.sort((a, b) => a - b);
let values = 0;
for (const a of anims)
  for (const f of a.animationFrames || []) values += 3 * ((f.boneRotations || []).length + 1);
console.log(
  `kujata ${path.basename(pack)}: best ${times[0].toFixed(2)} ms, median ${times[times.length >> 1].toFixed(2)} ms over ${rounds} rounds, ${values} angle values`
);
if (dumpArg === "--dump" && anims.length && anims[0].animationFrames) {
  const f = anims[0].animationFrames[0];
  const rows = [f.rootRotation].concat(f.boneRotations);
  for (const b of rows) console.log(`${b.x} ${b.y} ${b.z}`);
}

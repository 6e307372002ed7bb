// three.js BVHLoader (under Node) reads every .bvh that run.sh made.
// usage: node three_bvh.mjs CASES.tsv TESTDATA_DIR   (CASES.tsv: see three_check.mjs)
// For each file: it parses; its joints (ROOT/JOINT, i.e. three.js bones other than the
// End Site ones) = the skeleton's bone count, plus one when several roots need the
// synthetic "ganim_root"; every track has one key per frame of the
// first clip and the clip lasts (frames - 1) / fps (frames and fps from the test data
// or, for fixtures, ganim info); the pose half way is finite. Ends with "N passed, N failed".
import fs from 'node:fs';
import path from 'node:path';
import * as THREE from 'three';
import { BVHLoader } from 'three/addons/loaders/BVHLoader.js';
import { expectations, expectedJoints, readCases, readJson } from './three_check.mjs';

const [casesFile, data] = process.argv.slice(2);
let passed = 0, failed = 0;

for (const c of readCases(casesFile)) {
  const file = `${c.prefix}.bvh`;
  if (!fs.existsSync(file)) continue; // the conversion failure is already counted
  const problems = [];
  const check = (ok, msg) => { if (!ok) problems.push(msg); return ok; };
  try {
    const exp = await expectations(c, data);
    const joints = expectedJoints(c, exp, check);
    const text = fs.readFileSync(file, 'utf8');
    const res = new BVHLoader().parse(text);
    const declared = (text.match(/^\s*(ROOT|JOINT)\s/gm) ?? []).length;
    const bones = res.skeleton.bones.filter(b => b.name !== 'ENDSITE').length;
    check(bones === declared, `three.js made ${bones} joints of ${declared} ROOT/JOINT lines`);
    // Several root bones go under one synthetic ROOT "ganim_root" (src/export/export_bvh.c).
    const dump = readJson(c.prefix + '.dump.json');
    const roots = (dump.skeleton?.bones ?? []).filter(b => b.parent === -1).length;
    check(roots > 0, 'the dump has no root bone');
    const want = joints === null ? null : joints + (roots > 1 ? 1 : 0);
    if (want !== null) check(bones === want, `${bones} joints, expected ${want} (${joints} bones, ${roots} roots)`);

    const first = exp.clips[0];
    const frames = Number(/^Frames:\s*(\d+)/m.exec(text)?.[1]);
    check(frames === first.frames, `"Frames: ${frames}", expected ${first.frames}`);
    for (const tr of res.clip.tracks)
      if (!check(tr.times.length === first.frames, `track ${tr.name}: ${tr.times.length} keys, expected ${first.frames}`)) break;
    const dur = (first.frames - 1) / first.fps;
    // Frame Time is printed with a few digits: allow 1e-4 relative.
    check(Math.abs(res.clip.duration - dur) <= 1e-4 * Math.max(1, dur) + 1e-6,
      `duration ${res.clip.duration}, expected (${first.frames}-1)/${first.fps} = ${dur}`);

    const group = new THREE.Group();
    group.add(res.skeleton.bones[0]);
    const mixer = new THREE.AnimationMixer(group);
    mixer.clipAction(res.clip).play();
    mixer.update(res.clip.duration / 2);
    group.updateMatrixWorld(true);
    const bad = res.skeleton.bones.find(b => b.matrixWorld.elements.some(v => !Number.isFinite(v)));
    check(!bad, `non-finite pose of ${bad?.name} half way`);
  } catch (e) {
    problems.push(`BVHLoader failed: ${e?.stack ?? e}`);
  }
  if (problems.length) {
    failed++;
    console.log(`FAIL bvh ${path.basename(c.input)} (${file})`);
    for (const p of problems.slice(0, 10)) console.log(`    ${p}`);
  } else {
    passed++;
    console.log(`PASS bvh ${path.basename(c.input)}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

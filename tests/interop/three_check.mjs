// three.js (GLTFLoader + AnimationMixer, under Node) loads every .glb and .gltf that
// run.sh made, and the result must match the known answers.
// usage: node three_check.mjs CASES.tsv TESTDATA_DIR
// CASES.tsv lines (cases.mjs): id, family, input, kind (sample|fixture), output prefix
// (PREFIX.glb, .gltf, .info.json, .dump.json). For each glTF file:
//   - it loads;
//   - joints: three.js Bones = the skeleton's bone count (`ganim info --json`, which for
//     a real sample must equal the bone count its family's module reads from the test
//     data: README, expected JSON);
//   - one three.js clip per glTF animation, as many as the source has animation clips,
//     each with one track per glTF channel and duration (frames - 1) / fps from the test
//     data (real samples) or ganim info (fixtures);
//   - a non-root bone's local quaternion at t = 0 equals frame 0 of its rotation in
//     `ganim dump` (non-root: the axis conversion only touches roots);
//   - the pose half way through every clip is finite.
// Ends with "N passed, N failed"; exit 1 on failure. The expectation helpers are shared
// with three_bvh.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// ---- known answers ------------------------------------------------------------------

const repoDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

// { bones: number|null, clips: [{frames, fps}] } for one case. Real samples: from their
// family's module (tests/formats/<family>/expect.mjs reads the test data's README or
// expected JSON; the skeleton is the companion file ganim found, as info --json names
// it). The project's fixtures have no README: ganim info's numbers, which the clients
// must then agree with.
export async function expectations(c, data) {
  const info = readJson(c.prefix + '.info.json');
  const skeleton = info?.skeleton?.file ?? '';
  if (c.kind === 'sample') {
    const mod = path.join(repoDir, 'tests', 'formats', c.family, 'expect.mjs');
    if (!fs.existsSync(mod)) throw new Error(`no ${path.relative(repoDir, mod)} for the real samples of ${c.family}`);
    return (await import(pathToFileURL(mod).href)).expectations(c.input, skeleton, data);
  }
  // A clip with a partner at its rate (docs/dump-format.md) is one animation with it, as
  // long as the longer of the two; the partner is then not an animation of its own.
  const all = info.clips ?? [];
  const byIndex = new Map(all.map(cl => [cl.index, cl]));
  const partnerOf = cl => {
    const p = cl.partner === undefined ? null : byIndex.get(cl.partner);
    return p && p.fps === cl.fps ? p : null;
  };
  const inside = new Set(all.filter(cl => cl.kind === 'animation' && partnerOf(cl)).map(cl => cl.partner));
  return {
    bones: null,
    clips: all.filter(cl => cl.kind === 'animation' && !inside.has(cl.index))
      .map(cl => ({ frames: Math.max(cl.frame_count, partnerOf(cl)?.frame_count ?? 0), fps: cl.fps })),
  };
}

// ---- what ganim says about the same input ---------------------------------------------

// Bone count in `ganim info --json` output (docs/dump-format.md).
export function infoBoneCount(info) {
  const cands = [info?.skeleton?.bone_count, info?.skeleton?.bones, info?.bone_count, info?.bones];
  for (const c of cands) {
    if (typeof c === 'number') return c;
    if (Array.isArray(c)) return c.length;
  }
  return null;
}

export function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

export function readCases(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(l => {
    const [id, family, input, kind, prefix] = l.split('\t');
    return { id, family, input, kind, prefix };
  });
}

// The joint count every client must see: ganim's own, cross-checked with the README.
export function expectedJoints(c, exp, check) {
  let info = null;
  try { info = readJson(c.prefix + '.info.json'); } catch (e) { check(false, `info --json unreadable: ${e.message}`); return null; }
  const n = infoBoneCount(info);
  check(n !== null, 'no bone count in info --json');
  if (exp.bones !== null) check(n === exp.bones, `info --json says ${n} bones, the test data ${exp.bones}`);
  return exp.bones ?? n;
}

// Frame-0 local rotation (x, y, z, w) of bone `bone` in the `animIndex`-th animation clip
// of a `ganim dump` document, or null when the dump does not say.
export function dumpRotationFrame0(dump, animIndex, bone) {
  const clips = (dump.clips ?? []).filter(cl => (cl.kind ?? 'animation') === 'animation');
  const clip = clips[animIndex];
  if (!clip) return null;
  const track = (clip.tracks ?? []).find(t => t.bone === bone);
  const rest = dump.skeleton?.bones?.[bone]?.rest?.rotation;
  if (!track || !track.rotation || track.rotation.kind === 'absent') return rest ?? null;
  const r = track.rotation;
  const v = r.values ?? r.value;
  if (!Array.isArray(v)) return null;
  const flat = Array.isArray(v[0]) ? v[0] : v.slice(0, 4);
  if (r.kind === 'keyed' && r.times && r.times[0] > 0) return null; // would need the rest blend
  return flat;
}

// ---- the check -----------------------------------------------------------------------

// ganim_axes_to_y_up for each `axes` name of the dump (include/ganim.h), x y z w.
const AXIS_TO_Y_UP = { 'y-up': [0, 0, 0, 1], 'z-up': [-Math.SQRT1_2, 0, 0, Math.SQRT1_2], 'y-down': [1, 0, 0, 0] };
function qmul(a, b) { // Hamilton product a * b, x y z w
  return [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];
}

export async function loadGltf(THREE, GLTFLoader, file) {
  const manager = new THREE.LoadingManager();
  manager.setURLModifier(u => u.startsWith('data:') ? u :
    'data:application/octet-stream;base64,' +
    fs.readFileSync(path.resolve(path.dirname(file), decodeURIComponent(u))).toString('base64'));
  const buf = fs.readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return new Promise((res, rej) => new GLTFLoader(manager).parse(ab, '', res, rej));
}

export function gltfJson(file) {
  const buf = fs.readFileSync(file);
  if (buf.readUInt32LE(0) === 0x46546C67) { // "glTF": JSON chunk after the 12-byte header
    const len = buf.readUInt32LE(12);
    return JSON.parse(buf.subarray(20, 20 + len).toString('utf8'));
  }
  return JSON.parse(buf.toString('utf8'));
}

async function main() {
  // Node has no ProgressEvent; three's FileLoader (used for .gltf buffers) needs it.
  globalThis.ProgressEvent ??= class ProgressEvent extends Event {
    constructor(type, init = {}) { super(type); Object.assign(this, init); }
  };
  const THREE = await import('three');
  const { GLTFLoader } = await import('three/addons/loaders/GLTFLoader.js');
  const [casesFile, data] = process.argv.slice(2);
  let passed = 0, failed = 0, quatChecked = 0;

  for (const c of readCases(casesFile)) {
    let exp;
    try { exp = await expectations(c, data); } catch (e) {
      failed++; console.log(`FAIL three ${c.input}: ${e.message}`); continue;
    }
    for (const ext of ['glb', 'gltf']) {
      const file = `${c.prefix}.${ext}`;
      if (!fs.existsSync(file)) continue; // the conversion failure is already counted
      const label = `three ${path.basename(c.input)} -> .${ext}`;
      const problems = [];
      const check = (ok, msg) => { if (!ok) problems.push(msg); return ok; };
      try {
        const joints = expectedJoints(c, exp, check);
        const json = gltfJson(file);
        const gltf = await loadGltf(THREE, GLTFLoader, file);

        // joints
        let bones = 0; const skinned = [];
        gltf.scene.traverse(o => { if (o.isBone) bones++; if (o.isSkinnedMesh) skinned.push(o); });
        if (joints !== null) {
          check(bones === joints, `${bones} three.js bones, expected ${joints}`);
          for (const s of skinned) check(s.skeleton.bones.length === joints,
            `skinned mesh ${s.name}: ${s.skeleton.bones.length} bones, expected ${joints}`);
        }

        // clips, tracks, durations
        const anims = json.animations ?? [];
        check(gltf.animations.length === anims.length, `${gltf.animations.length} three.js clips for ${anims.length} glTF animations`);
        check(anims.length === exp.clips.length, `${anims.length} glTF animations, the source has ${exp.clips.length} clips`);
        for (let i = 0; i < Math.min(gltf.animations.length, anims.length, exp.clips.length); i++) {
          const clip = gltf.animations[i], want = exp.clips[i];
          check(clip.tracks.length === anims[i].channels.length,
            `animation ${i}: ${clip.tracks.length} three.js tracks for ${anims[i].channels.length} glTF channels`);
          const dur = (want.frames - 1) / want.fps;
          check(Math.abs(clip.duration - dur) <= 1e-4 * Math.max(1, dur),
            `animation ${i} (${clip.name}): duration ${clip.duration}, expected (${want.frames}-1)/${want.fps} = ${dur}`);
        }

        // A non-root joint's rotation at t = 0 against ganim dump.
        const skin = json.skins?.[0];
        if (skin && anims.length) {
          const parentOf = new Map();
          (json.nodes ?? []).forEach((n, i) => (n.children ?? []).forEach(ch => parentOf.set(ch, i)));
          const jointIndex = new Map(skin.joints.map((node, k) => [node, k]));
          const dump = readJson(c.prefix + '.dump.json');
          const rot = anims[0].channels.filter(ch => ch.target.path === 'rotation' && jointIndex.has(ch.target.node));
          // One non-root bone (the axis conversion leaves it alone) and one root bone,
          // which the exporter turns by C (q' = C q, src/export/export.h).
          const picks = [rot.find(ch => jointIndex.has(parentOf.get(ch.target.node))),
                         rot.find(ch => !jointIndex.has(parentOf.get(ch.target.node)))].filter(Boolean);
          check(picks.length || !rot.length, 'no rotation channel fit for the frame-0 comparison');
          const C = AXIS_TO_Y_UP[dump.axes];
          check(C, `unknown axes "${dump.axes}" in the dump`);
          for (const ch of C ? picks : []) {
            const node = ch.target.node, bone = jointIndex.get(node);
            const isRoot = !jointIndex.has(parentOf.get(node));
            let obj = null;
            gltf.scene.traverse(o => { if (gltf.parser.associations.get(o)?.nodes === node) obj = o; });
            // The exporter normalises rotations (the validator demands unit quaternions);
            // quantised file values (Alamo int16 / 32767) are a little off unit length.
            let want = dumpRotationFrame0(dump, 0, bone);
            if (want) {
              if (isRoot) want = qmul(C, want);
              const l = Math.hypot(...want); want = want.map(v => v / l);
            }
            if (check(obj && want, `no object for node ${node} or no frame-0 rotation for bone ${bone} in the dump`)) {
              const mixer = new THREE.AnimationMixer(gltf.scene);
              mixer.clipAction(gltf.animations[0]).play();
              mixer.update(0);
              const q = obj.quaternion.toArray();
              const d1 = Math.max(...q.map((v, k) => Math.abs(v - want[k])));
              const d2 = Math.max(...q.map((v, k) => Math.abs(v + want[k])));
              check(Math.min(d1, d2) <= 1e-5,
                `${isRoot ? 'root' : 'non-root'} bone ${bone} (${json.nodes[node].name}) at t=0: three.js [${q.map(v => v.toFixed(7))}], dump${isRoot ? ' turned to +Y up' : ''} [${want.map(v => v.toFixed(7))}]`);
              quatChecked++;
              mixer.stopAllAction();
              mixer.uncacheRoot(gltf.scene);
            }
          }
        }

        // Every clip half way: a finite pose.
        for (const clip of gltf.animations) {
          const mixer = new THREE.AnimationMixer(gltf.scene);
          mixer.clipAction(clip).play();
          mixer.update(clip.duration / 2);
          gltf.scene.updateMatrixWorld(true);
          let bad = null;
          gltf.scene.traverse(o => { if (!bad && o.matrixWorld.elements.some(v => !Number.isFinite(v))) bad = o.name; });
          check(!bad, `clip ${clip.name}: non-finite pose of ${bad} at ${clip.duration / 2} s`);
          mixer.stopAllAction();
          mixer.uncacheRoot(gltf.scene);
        }
      } catch (e) {
        problems.push(`three.js failed: ${e?.stack ?? e}`);
      }
      if (problems.length) {
        failed++;
        console.log(`FAIL ${label} (${file})`);
        for (const p of problems.slice(0, 10)) console.log(`    ${p}`);
      } else {
        passed++;
        console.log(`PASS ${label}`);
      }
    }
  }
  console.log(`three.js glTF: ${quatChecked} frame-0 rotations compared with ganim dump`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();

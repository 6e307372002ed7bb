// three.js (GLTFLoader + AnimationMixer) poses ganim's glb as ganim_clip_sample does.
// usage: node pose_three.mjs FILE.glb POSES.json
// POSES.json: tools/pose_world's output for the file the glb was made from (every
// joint's world matrix at every quarter frame of every animation). For each animation
// of the glb (matched by extras.ganim.clip_index), plays it alone, clamped at its end,
// at the same times, and measures every joint's world matrix against ganim's:
//   error = max(|translation difference| / extent, max |3x3 element difference|)
// where extent is the largest distance of a joint from the origin in that pose (at
// least 1e-6): a point at the pose's extent moves by at most error * extent.
// Prints one JSON line: {"whole": e, "half": e, "quarter": e, "worst": {...}} with the
// worst error at whole frames, half-way and quarter-way (k + 1/4 and k + 3/4).
import fs from 'node:fs';
import { loadGltf, gltfJson } from './three_check.mjs';

export function poseError(a, ao, b, bo, n) { // world matrices of n joints at offsets
  let extent = 1e-6;
  for (let j = 0; j < n; j++) {
    const o = bo + 16 * j;
    extent = Math.max(extent, Math.hypot(b[o + 12], b[o + 13], b[o + 14]));
  }
  let worst = 0, joint = -1;
  for (let j = 0; j < n; j++) {
    const p = ao + 16 * j, q = bo + 16 * j;
    let e = Math.hypot(a[p + 12] - b[q + 12], a[p + 13] - b[q + 13], a[p + 14] - b[q + 14]) / extent;
    for (const k of [0, 1, 2, 4, 5, 6, 8, 9, 10]) e = Math.max(e, Math.abs(a[p + k] - b[q + k]));
    if (!(e <= worst)) { worst = e; joint = j; } // NaN counts as worst
  }
  return { error: worst, joint, extent };
}

export function kindOf(k, steps) { return k % steps === 0 ? 'whole' : 2 * (k % steps) === steps ? 'half' : 'quarter'; }

async function main() {
  globalThis.ProgressEvent ??= class ProgressEvent extends Event {
    constructor(type, init = {}) { super(type); Object.assign(this, init); }
  };
  const THREE = await import('three');
  const { GLTFLoader } = await import('three/addons/loaders/GLTFLoader.js');
  const [file, posesFile] = process.argv.slice(2);
  const poses = JSON.parse(fs.readFileSync(posesFile, 'utf8'));
  const json = gltfJson(file);
  const gltf = await loadGltf(THREE, GLTFLoader, file);
  const joints = json.skins?.[0]?.joints ?? [];
  const n = poses.bones.length;
  if (joints.length !== n) throw new Error(`${joints.length} joints in the glb, ${n} bones in ganim's pose`);
  const objs = joints.map(node => {
    let found = null;
    gltf.scene.traverse(o => { if (gltf.parser.associations.get(o)?.nodes === node) found = o; });
    return found;
  });
  const result = { whole: 0, half: 0, quarter: 0, worst: null, animations: 0 };
  const got = new Float64Array(16 * n);
  (json.animations ?? []).forEach((anim, ai) => {
    const ci = anim.extras?.ganim?.clip_index;
    const ref = poses.animations.find(a => a.clip === ci);
    if (!ref) throw new Error(`animation ${ai} (${anim.name}): no clip ${ci} in ganim's poses`);
    const clip = gltf.animations[ai];
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    const steps = Math.round((ref.world.length - 1) / Math.max(1, ref.frames - 1)) || 1;
    ref.world.forEach((w, k) => {
      mixer.setTime(k / steps / ref.fps);
      gltf.scene.updateMatrixWorld(true);
      objs.forEach((o, j) => got.set(o.matrixWorld.elements, 16 * j));
      const e = poseError(got, 0, w, 0, n);
      const kind = kindOf(k, steps);
      if (!(e.error <= result[kind])) result[kind] = e.error;
      if (!result.worst || !(e.error <= result.worst.error))
        result.worst = { error: e.error, animation: anim.name, frame: k / steps, joint: poses.bones[e.joint], extent: e.extent };
    });
    result.animations++;
    mixer.stopAllAction();
    mixer.uncacheRoot(gltf.scene);
  });
  console.log(JSON.stringify(result));
}

await main();

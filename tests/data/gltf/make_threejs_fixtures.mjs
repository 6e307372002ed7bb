// Makes the three.js fixtures of tests/data/gltf with three.js's own GLTFExporter under
// Node (three 0.187.0, from tests/interop: npm ci there first), run from the repository:
//
//   node tests/data/gltf/make_threejs_fixtures.mjs tests/data/gltf
//
//   threejs_run.glb    binary glTF: a skinned mesh of three bones and one clip "Run" with
//                      LINEAR (quaternion, position) and discrete (-> STEP) tracks at key
//                      times that are not whole frames of any rate (1/7 s), plus a track on
//                      a prop that is not a bone
//   threejs_run.gltf   the same as JSON with its buffer in a base64 data URI
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const three = path.join(here, '../../interop/node_modules/three');
const THREE = await import(path.join(three, 'build/three.module.js'));
const { GLTFExporter } = await import(path.join(three, 'examples/jsm/exporters/GLTFExporter.js'));

// Node has Blob but no FileReader, which the exporter uses to collect its buffers
globalThis.FileReader ??= class FileReader {
  readAsArrayBuffer(blob) { blob.arrayBuffer().then(b => { this.result = b; this.onloadend?.(); }); }
  readAsDataURL(blob) {
    blob.arrayBuffer().then(b => {
      this.result = 'data:application/octet-stream;base64,' + Buffer.from(b).toString('base64');
      this.onloadend?.();
    });
  }
};

const out = process.argv[2] ?? here;
const scene = new THREE.Scene();
const hips = new THREE.Bone(); hips.name = 'Hips'; hips.position.set(0, 1, 0);
const spine = new THREE.Bone(); spine.name = 'Spine'; spine.position.set(0, 0.4, 0);
const head = new THREE.Bone(); head.name = 'Head'; head.position.set(0, 0.5, 0.05);
head.quaternion.setFromAxisAngle(new THREE.Vector3(1, 0, 0), 0.2);
hips.add(spine); spine.add(head);
const geometry = new THREE.BufferGeometry();
geometry.setAttribute('position', new THREE.Float32BufferAttribute([-0.1, 1, 0, 0.1, 1, 0, 0, 1.9, 0], 3));
geometry.setAttribute('skinIndex', new THREE.Uint16BufferAttribute([0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0], 4));
geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 4));
const mesh = new THREE.SkinnedMesh(geometry, new THREE.MeshBasicMaterial());
mesh.name = 'Body';
mesh.add(hips);
mesh.bind(new THREE.Skeleton([hips, spine, head]));
scene.add(mesh);
const prop = new THREE.Mesh(new THREE.BoxGeometry(0.1, 0.1, 0.1), new THREE.MeshBasicMaterial());
prop.name = 'Prop';
scene.add(prop);

const q = (x, y, z, deg) => new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(x, y, z).normalize(), deg * Math.PI / 180).toArray();
const t = [0, 1 / 7, 3 / 7, 5 / 7, 1];
const tracks = [
  new THREE.QuaternionKeyframeTrack('Spine.quaternion', t, [...q(1, 0, 0, 0), ...q(1, 0, 0, 20), ...q(0, 0, 1, -15), ...q(0, 1, 0, 30), ...q(1, 0, 0, 0)]),
  new THREE.VectorKeyframeTrack('Hips.position', [0, 0.5, 1], [0, 1, 0, 0.2, 1.1, 0, 0, 1, 0]),
  new THREE.QuaternionKeyframeTrack('Head.quaternion', [0, 2 / 7, 4 / 7], [...q(1, 0, 0, 11.459), ...q(0, 1, 0, 25), ...q(0, 1, 0, -25)], THREE.InterpolateDiscrete),
  new THREE.VectorKeyframeTrack('Prop.position', [0, 1], [0, 0, 0, 1, 0, 0]),
];
const clip = new THREE.AnimationClip('Run', 1, tracks);

const exporter = new GLTFExporter();
for (const binary of [true, false]) {
  const result = await exporter.parseAsync(scene, { binary, animations: [clip] });
  const file = path.join(out, binary ? 'threejs_run.glb' : 'threejs_run.gltf');
  fs.writeFileSync(file, binary ? Buffer.from(result) : JSON.stringify(result));
  console.log('wrote', file);
}

// The 3D view: the skeleton as joints and bones (and a document's meshes, skinned to
// it), posed from ganim's local transforms, in three.js with orbit, pan and zoom.
import {
    Bone,
    Box3,
    BufferAttribute,
    BufferGeometry,
    Color,
    DirectionalLight,
    DoubleSide,
    GridHelper,
    Group,
    HemisphereLight,
    InstancedMesh,
    LineBasicMaterial,
    LineSegments,
    Matrix4,
    MeshBasicMaterial,
    MeshStandardMaterial,
    PerspectiveCamera,
    Quaternion,
    Scene as ThreeScene,
    Skeleton,
    SkinnedMesh,
    SphereGeometry,
    Vector3,
    WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

const JOINT = new Color(0xf2b134);
const JOINT_ROOT = new Color(0xe4572e);
const JOINT_HIDDEN = new Color(0x5b6270);
const JOINT_SELECTED = new Color(0x4fc3f7);

export class Scene {
    constructor(canvas) {
        this.canvas = canvas;
        try {
            this.renderer = new WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
            this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
        } catch {
            this.renderer = null; // no WebGL: the rest of the page works without the view
        }
        this.scene = new ThreeScene();
        this.scene.background = new Color(0x1d2129);
        this.camera = new PerspectiveCamera(45, 1, 0.01, 1000);
        this.camera.position.set(2, 1.5, 3);
        this.controls = new OrbitControls(this.camera, canvas);
        this.controls.enableDamping = false;
        this.controls.addEventListener('change', () => this.render());
        this.scene.add(new HemisphereLight(0xffffff, 0x404050, 2.2));
        const sun = new DirectionalLight(0xffffff, 1.5);
        sun.position.set(3, 5, 4);
        this.scene.add(sun);
        this.grid = new GridHelper(4, 20, 0x4a5060, 0x30353f);
        this.scene.add(this.grid);
        this.model = null; // {root, bones, joints, lines, meshes}
        this.selected = -1;
        new ResizeObserver(() => this.resize()).observe(canvas.parentElement);
        this.resize();
    }

    resize() {
        const el = this.canvas.parentElement;
        const w = Math.max(1, el.clientWidth), h = Math.max(1, el.clientHeight);
        if (this.renderer) this.renderer.setSize(w, h, false);
        this.camera.aspect = w / h;
        this.camera.updateProjectionMatrix();
        this.render();
    }

    clear() {
        if (!this.model) return;
        for (const part of [this.model.root, this.model.joints, this.model.lines, this.model.axes]) {
            if (!part) continue;
            this.scene.remove(part);
            part.traverse((o) => {
                if (o.geometry) o.geometry.dispose();
                if (o.material) o.material.dispose();
            });
        }
        this.model = null;
        this.selected = -1;
    }

    // A skeleton of `bones` ([{name, parent, hidden}]) in a document whose axes turn to
    // +Y up by the quaternion `toYUp`, with `meshes` (ganim.js GanimDoc.meshes()) bound
    // to it at the rest pose `rest`.
    build(bones, toYUp, rest, meshes) {
        this.clear();
        const root = new Group();
        root.quaternion.set(toYUp[0], toYUp[1], toYUp[2], toYUp[3]);
        const nodes = bones.map((b) => {
            const bone = new Bone();
            bone.name = b.name;
            return bone;
        });
        bones.forEach((b, i) => (b.parent >= 0 ? nodes[b.parent] : root).add(nodes[i]));
        this.scene.add(root);
        const model = { root, bones, nodes, meshes: [], hidden: bones.map((b) => b.hidden), visible: null };
        this.model = model;
        this.applyPose(rest);

        // Meshes: each vertex follows one bone rigidly (weight 1), bound at the rest pose.
        if (meshes.length && nodes.length) {
            const skeleton = new Skeleton(nodes);
            skeleton.calculateInverses();
            for (const m of meshes) {
                const g = new BufferGeometry();
                g.setAttribute('position', new BufferAttribute(m.positions, 3));
                if (m.normals) g.setAttribute('normal', new BufferAttribute(m.normals, 3));
                const index = new Uint16Array(m.bones.length * 4);
                for (let v = 0; v < m.bones.length; v++) index[v * 4] = Math.min(m.bones[v], nodes.length - 1);
                const weight = new Float32Array(m.bones.length * 4);
                for (let v = 0; v < m.bones.length; v++) weight[v * 4] = 1;
                g.setAttribute('skinIndex', new BufferAttribute(index, 4));
                g.setAttribute('skinWeight', new BufferAttribute(weight, 4));
                g.setIndex(new BufferAttribute(m.triangles, 1));
                if (!m.normals) g.computeVertexNormals();
                const mat = new MeshStandardMaterial({ color: 0x8fa3bf, roughness: 0.7, metalness: 0.05, side: DoubleSide, flatShading: !m.normals });
                const mesh = new SkinnedMesh(g, mat);
                root.add(mesh);
                root.updateMatrixWorld(true);
                mesh.bind(skeleton, mesh.matrixWorld);
                mesh.frustumCulled = false;
                model.meshes.push(mesh);
            }
        }

        // Joints as spheres (one instanced mesh), bones as lines from joint to parent.
        const jointGeo = new SphereGeometry(1, 12, 8);
        const jointMat = new MeshBasicMaterial({ depthTest: false, transparent: true, opacity: 0.95 });
        model.joints = new InstancedMesh(jointGeo, jointMat, Math.max(1, nodes.length));
        model.joints.count = nodes.length;
        model.joints.renderOrder = 2;
        model.joints.frustumCulled = false;
        const lineGeo = new BufferGeometry();
        lineGeo.setAttribute('position', new BufferAttribute(new Float32Array(Math.max(1, nodes.length) * 6), 3));
        model.lines = new LineSegments(lineGeo, new LineBasicMaterial({ color: 0xd8dee9, depthTest: false, transparent: true }));
        model.lines.renderOrder = 1;
        model.lines.frustumCulled = false;
        // Each joint's axes (x red, y green, z blue): a joint that only turns shows it.
        const axesGeo = new BufferGeometry();
        axesGeo.setAttribute('position', new BufferAttribute(new Float32Array(Math.max(1, nodes.length) * 18), 3));
        const colors = new Float32Array(Math.max(1, nodes.length) * 18);
        const rgb = [
            [0.9, 0.3, 0.3],
            [0.4, 0.85, 0.4],
            [0.35, 0.55, 1],
        ];
        for (let i = 0; i < nodes.length; i++) for (let a = 0; a < 3; a++) for (let e = 0; e < 2; e++) colors.set(rgb[a], i * 18 + a * 6 + e * 3);
        axesGeo.setAttribute('color', new BufferAttribute(colors, 3));
        model.axes = new LineSegments(axesGeo, new LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true }));
        model.axes.renderOrder = 3;
        model.axes.frustumCulled = false;
        this.scene.add(model.joints, model.lines, model.axes);
        this.updateMarkers();
        this.frame();
    }

    // Sets the bones' local transforms from 10 floats per bone (ganim's pose layout);
    // `visible`: one byte per bone, or null.
    applyPose(pose, visible = null) {
        const m = this.model;
        if (!m) return;
        for (let i = 0; i < m.nodes.length; i++) {
            const o = i * 10, n = m.nodes[i];
            n.quaternion.set(pose[o], pose[o + 1], pose[o + 2], pose[o + 3]);
            n.position.set(pose[o + 4], pose[o + 5], pose[o + 6]);
            n.scale.set(pose[o + 7], pose[o + 8], pose[o + 9]);
        }
        m.visible = visible;
        m.root.updateMatrixWorld(true);
        if (m.joints) this.updateMarkers();
    }

    jointWorld() {
        const m = this.model;
        return m.nodes.map((n) => new Vector3().setFromMatrixPosition(n.matrixWorld));
    }

    updateMarkers() {
        const m = this.model;
        const p = this.jointWorld();
        const r = (this.extent || 1) * 0.012;
        const mat = new Matrix4();
        const attr = m.lines.geometry.getAttribute('position');
        for (let i = 0; i < p.length; i++) {
            const shown = !m.visible || m.visible[i];
            const size = i === this.selected ? r * 1.8 : r;
            mat.makeScale(size, size, size).setPosition(p[i]);
            m.joints.setMatrixAt(i, mat);
            const color = i === this.selected ? JOINT_SELECTED : !shown || m.hidden[i] ? JOINT_HIDDEN : m.bones[i].parent < 0 ? JOINT_ROOT : JOINT;
            m.joints.setColorAt(i, color);
            const q = m.bones[i].parent >= 0 ? p[m.bones[i].parent] : p[i];
            attr.setXYZ(i * 2, p[i].x, p[i].y, p[i].z);
            attr.setXYZ(i * 2 + 1, q.x, q.y, q.z);
        }
        const axes = m.axes.geometry.getAttribute('position');
        const len = r * 3;
        const dir = new Vector3();
        const rot = new Quaternion();
        for (let i = 0; i < p.length; i++) {
            m.nodes[i].matrixWorld.decompose(dir, rot, new Vector3());
            for (let a = 0; a < 3; a++) {
                dir.set(a === 0 ? len : 0, a === 1 ? len : 0, a === 2 ? len : 0).applyQuaternion(rot);
                axes.setXYZ(i * 6 + a * 2, p[i].x, p[i].y, p[i].z);
                axes.setXYZ(i * 6 + a * 2 + 1, p[i].x + dir.x, p[i].y + dir.y, p[i].z + dir.z);
            }
        }
        axes.needsUpdate = true;
        m.axes.geometry.setDrawRange(0, p.length * 6);
        m.joints.instanceMatrix.needsUpdate = true;
        if (m.joints.instanceColor) m.joints.instanceColor.needsUpdate = true;
        attr.needsUpdate = true;
        m.lines.geometry.setDrawRange(0, p.length * 2);
    }

    // Points the camera at the skeleton (and meshes) as posed now.
    // `poses` (ganim's layout, may be empty): more poses the view must hold (a clip's
    // frames), besides the present one, which is shown again afterwards.
    frame(poses = []) {
        if (!this.model) return;
        const box = new Box3();
        for (const p of this.jointWorld()) box.expandByPoint(p);
        for (const mesh of this.model.meshes) {
            mesh.geometry.computeBoundingBox();
            box.union(mesh.geometry.boundingBox.clone().applyMatrix4(mesh.matrixWorld));
        }
        if (poses.length) {
            const now = this.model.nodes.map((n) => [n.position.clone(), n.quaternion.clone(), n.scale.clone()]);
            const visible = this.model.visible;
            for (const pose of poses) {
                this.applyPose(pose);
                for (const p of this.jointWorld()) box.expandByPoint(p);
            }
            this.model.nodes.forEach((n, i) => {
                n.position.copy(now[i][0]);
                n.quaternion.copy(now[i][1]);
                n.scale.copy(now[i][2]);
            });
            this.model.visible = visible;
            this.model.root.updateMatrixWorld(true);
        }
        if (box.isEmpty()) box.set(new Vector3(-1, 0, -1), new Vector3(1, 1, 1));
        const center = box.getCenter(new Vector3());
        const radius = Math.max(box.getSize(new Vector3()).length() / 2, 1e-3);
        this.extent = radius;
        const dist = radius / Math.sin((this.camera.fov * Math.PI) / 360);
        this.camera.near = dist / 1000;
        this.camera.far = dist * 100;
        this.camera.position.copy(center).add(new Vector3(0.6, 0.45, 1).normalize().multiplyScalar(dist * 1.1));
        this.camera.updateProjectionMatrix();
        this.controls.target.copy(center);
        this.controls.update();
        this.scene.remove(this.grid);
        this.grid.geometry.dispose();
        const size = radius * 4;
        this.grid = new GridHelper(size, 20, 0x4a5060, 0x30353f);
        this.grid.position.set(center.x, box.min.y, center.z);
        this.scene.add(this.grid);
        this.updateMarkers();
        this.render();
    }

    select(bone) {
        this.selected = bone;
        if (this.model) this.updateMarkers();
        this.render();
    }

    render() {
        if (this.renderer) this.renderer.render(this.scene, this.camera);
    }
}

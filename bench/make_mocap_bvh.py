#!/usr/bin/env python3
"""A CMU-style motion-capture BVH for the BVH read's throughput (issue 23; not a test).

    python3 bench/make_mocap_bvh.py JOINTS FRAMES FORMAT OUT.bvh
    python3 bench/make_mocap_bvh.py 31 4000 %.6f /tmp/cmu6.bvh   # 4,056,413 bytes

A root with 6 channels (Xposition Yposition Zposition Zrotation Xrotation Yrotation) and
five chains of (JOINTS - 1) / 5 joints with 3 channels each, an End Site at each chain's
end, OFFSETs uniform in [-20, 20]; every channel a random walk (steps uniform in [-2, 2],
seed 1) written with FORMAT (%.6f as Blender and most mocap libraries, %.4f, %g), one
frame a line with a trailing space, "Frame Time: 0.008333". Then
    build-rel/bench_ganim --no-synthetic --quick --only read OUT.bvh
"""
import random
import sys


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    nj, nf, fmt, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    random.seed(1)
    lines = ["HIERARCHY"]
    chans = []

    def joint(i, depth, root):
        ind = "\t" * depth
        lines.append(ind + ("ROOT " if root else "JOINT ") + "Joint%d" % i)
        lines.append(ind + "{")
        lines.append(ind + "\tOFFSET %.6f %.6f %.6f" % tuple(random.uniform(-20, 20) for _ in range(3)))
        if root:
            lines.append(ind + "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation")
            chans.append(6)
        else:
            lines.append(ind + "\tCHANNELS 3 Zrotation Xrotation Yrotation")
            chans.append(3)

    joint(0, 0, True)
    count, per = 1, (nj - 1) // 5
    for _ in range(5):
        d = 1
        for _ in range(per):
            joint(count, d, False)
            count += 1
            d += 1
        lines += ["\t" * d + "End Site", "\t" * d + "{", "\t" * d + "\tOFFSET 0.000000 1.000000 0.000000", "\t" * d + "}"]
        for _ in range(per):
            d -= 1
            lines.append("\t" * d + "}")
    lines += ["}", "MOTION", "Frames: %d" % nf, "Frame Time: 0.008333"]
    state = [random.uniform(-90, 90) for _ in range(sum(chans))]
    for _ in range(nf):
        state = [v + random.uniform(-2, 2) for v in state]
        lines.append(" ".join(fmt % v for v in state) + " ")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

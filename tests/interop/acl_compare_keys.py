#!/usr/bin/env python3
"""Largest difference between two lists of "key FRAME TRACK v0..v9" lines (ACL's decode
and ganim's decode of the same buffer): rotation components compared sign-insensitively,
translations and scales relative to max(1, |v|). Prints "keys N rot R vec V"; exits 1
when the lists differ in length or the differences exceed the tolerances given."""
import sys


def keys(path):
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "key":
                out[(int(p[1]), int(p[2]))] = [float(x) for x in p[3:13]]
    return out


a, b = keys(sys.argv[1]), keys(sys.argv[2])
rot_tol, vec_tol = float(sys.argv[3]), float(sys.argv[4])
rot = vec = 0.0
for k, va in a.items():
    vb = b.get(k)
    if vb is None:
        print("missing key", k)
        sys.exit(1)
    dp = max(abs(va[i] - vb[i]) for i in range(4))
    dn = max(abs(va[i] + vb[i]) for i in range(4))
    rot = max(rot, min(dp, dn))
    for i in range(4, 10):
        vec = max(vec, abs(va[i] - vb[i]) / max(1.0, abs(va[i])))
print("keys %d rot %.3g vec %.3g" % (len(a), rot, vec))
sys.exit(0 if len(a) == len(b) and rot <= rot_tol and vec <= vec_tol else 1)

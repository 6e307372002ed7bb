#!/usr/bin/env python3
"""No call circle between the files of one folder (docs/architecture.md, "Where things
are"): within each folder of src/ and cli/, if a.c calls a function defined in b.c, then
nothing b.c calls, directly or through other files of that folder, is defined in a.c.
A circle means two files hold one idea between them, or a function lives in the wrong
file. Functions are found by their definitions (not static) and calls by name, in the
text with comments and strings removed. Prints each circle and exits 1 when there is one."""
import collections
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFINITION = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)


def code_of(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    return re.sub(r'"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', '""', text)


def main():
    files = []
    for top in ("src", "cli"):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".c")]
    code = {f: code_of(f) for f in files}
    defined = {}
    for f, text in code.items():
        for m in DEFINITION.finditer(text):
            defined.setdefault(m.group(1), f)
    calls = collections.defaultdict(dict)  # file -> file in the same folder -> names
    for f, text in code.items():
        for word in set(re.findall(r"\b[A-Za-z_]\w*\b", text)):
            g = defined.get(word)
            if g and g != f and os.path.dirname(g) == os.path.dirname(f):
                calls[f].setdefault(g, []).append(word)
    # strongly connected components (Tarjan, iterative)
    index, low, on, stack, circles, counter = {}, {}, set(), [], [], [0]
    for start in files:
        if start in index:
            continue
        work = [(start, iter(calls[start]))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(calls[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    rel = lambda p: os.path.relpath(p, ROOT)
    for group in circles:
        print("FAIL: a call circle between the files of %s:" % rel(os.path.dirname(group[0])))
        for a in group:
            for b in group:
                if b in calls[a]:
                    print("  %s -> %s (%s)" % (rel(a), rel(b), ", ".join(sorted(calls[a][b])[:6])))
    print("calls: %d files, %d functions, %d call circles" % (len(files), len(defined), len(circles)))
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Score `toolsift repair` against the peer JSON-repair suites by parsed value, per
suite and per kind. Informational: peers disagree with each other on a third of the
inputs; docs/repairs.md ("Deliberate choices") lists where toolsift differs on purpose.
Usage: peer_score.py TOOLSIFT_BIN SHARED_DIR [--by-kind]"""
import collections, glob, json, subprocess, sys

binary, shared = sys.argv[1], sys.argv[2]
by_kind = "--by-kind" in sys.argv
cases = []
for path in sorted(glob.glob(f"{shared}/peer-suites/*.jsonl")):
    suite = path.rsplit("/", 1)[1][:-6]
    for line in open(path, encoding="utf-8"):
        c = json.loads(line)
        if c.get("options") or c.get("schema"):
            continue  # peer-specific modes and schema-guided cases
        cases.append((suite, c))
stdin = "".join(json.dumps({"input": c["input"]}) + "\n" for _, c in cases)
out = subprocess.run([binary, "repair", "--jsonl"], input=stdin.encode(), capture_output=True, check=True)
results = [json.loads(l) for l in out.stdout.decode().split("\n") if l]
score = collections.defaultdict(lambda: [0, 0])
kinds = collections.defaultdict(lambda: [0, 0])
for (suite, c), r in zip(cases, results):
    want = c.get("expected")
    if want is None:
        ok = r["output"] is None
    elif r["output"] is None:
        ok = False
    else:
        try:
            ok = json.loads(r["output"]) == json.loads(want)
        except ValueError:
            ok = False
    score[suite][0] += ok
    score[suite][1] += 1
    kinds[(suite, c.get("kind") or "")][0] += ok
    kinds[(suite, c.get("kind") or "")][1] += 1
print("| suite | cases | same value | share |")
print("|---|---|---|---|")
for s, (ok, n) in sorted(score.items()):
    print(f"| {s} | {n} | {ok} | {100 * ok // max(n, 1)}% |")
if by_kind:
    print()
    for (s, k), (ok, n) in sorted(kinds.items()):
        if ok < n:
            print(f"{s:28} {k:40} {ok}/{n}")

#!/usr/bin/env python3
"""Every peer-suite case tagged `valid` must come back from `toolsift repair --jsonl`
byte-identical with no repair. Usage: peer_valid.py TOOLSIFT_BIN SHARED_DIR"""
import glob, json, subprocess, sys

binary, shared = sys.argv[1], sys.argv[2]
cases, excluded = [], []
for path in sorted(glob.glob(f"{shared}/peer-suites/*.jsonl")):
    for line in open(path, encoding="utf-8"):
        case = json.loads(line)
        if "valid" not in (case.get("tags") or []):
            continue
        try:  # json5-style "valid" inputs (NaN, Infinity) are not JSON: strict output cannot keep them
            json.loads(case["input"], parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError:
            excluded.append(case["input"])
            continue
        cases.append((path.rsplit("/", 1)[1], case))
stdin = "".join(json.dumps({"input": c["input"]}) + "\n" for _, c in cases)
out = subprocess.run([binary, "repair", "--jsonl"], input=stdin.encode(), capture_output=True, check=True)
results = [json.loads(l) for l in out.stdout.decode().splitlines()]
assert len(results) == len(cases), (len(results), len(cases))
failed = 0
for (suite, case), res in zip(cases, results):
    if res["output"] != case["input"] or res["repairs"]:
        failed += 1
        print(f"FAIL {suite} {case['name']!r}: {case['input']!r} -> {res}")
print(f"excluded {len(excluded)} inputs that are not strict JSON: {excluded}")
print(f"peer valid passthrough: {len(cases) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)

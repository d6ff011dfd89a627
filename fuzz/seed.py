#!/usr/bin/env python3
"""Seed fuzz/corpus/<target>/ from the fixtures (and, locally, from test data outside the
repository). Each target reads a few header bytes before the raw input (see the target's
`Input`); seeds get a plain header: whole-input chunking, default flags, and a second
copy chunked small.

    python3 fuzz/seed.py                      # fixtures only
    python3 fuzz/seed.py --extra ../shared    # also real traffic, peer-suite inputs and
                                              # every input in ../shared/fuzz-findings/
    python3 fuzz/seed.py --out DIR            # into DIR/<target>/ (scripts/fuzz.sh
                                              # keeps its corpus in the cargo target dir)

The corpus directory is not committed (.gitignore): rebuild it with this script.
Seeds are named by their hash, so seeding a corpus again adds only what is new.
"""
import argparse, hashlib, json, os, pathlib, re

ROOT = pathlib.Path(__file__).resolve().parent
FIXTURES = ROOT.parent / "tests" / "fixtures" / "parse.jsonl"


OUT = ROOT / "corpus"
# Every target the fuzz crate declares, read from its manifest.
TARGETS = re.findall(r'\[\[bin\]\]\s*name = "([^"]+)"', (ROOT / "Cargo.toml").read_text())


def put(target, data):
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def sse_body(raw):
    """An OpenAI stream whose content deltas carry `raw` in 7-character pieces."""
    text = raw.decode("utf-8", "replace")
    out = []
    for i in range(0, len(text), 7):
        chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
                 "choices": [{"index": 0, "delta": {"content": text[i:i + 7]}}]}
        out.append("data: " + json.dumps(chunk) + "\n\n")
    out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def seed_parse(raw):
    whole, small = bytes(6), bytes([1, 3, 7, 2, 5, 11])
    for flags in (0, 0x48):  # default; tools + length stop
        put("push", bytes([0, flags]) + whole + raw)
        put("push", bytes([0, flags]) + small + raw)
    for d in range(4):
        put("chunking", bytes([d, 0]) + small + whole + raw)
    put("sse", bytes([200]) + small + whole + sse_body(raw))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--extra", help="the shared test-data directory (not committed)")
    ap.add_argument("--out", help="the corpus directory (default fuzz/corpus)")
    args = ap.parse_args()
    global OUT
    if args.out:
        OUT = pathlib.Path(args.out)
    for line in FIXTURES.read_text().splitlines():
        fx = json.loads(line)
        raw = fx["raw"].encode()
        seed_parse(raw)
        for call in fx["expect"]["tool_calls"]:
            put("repair_vs_serde", call["arguments"].encode())
            for v in json.loads(call["arguments"]).values():
                if isinstance(v, str):
                    put("schema_prior", bytes([0, 1, 2]) + v.encode())
        put("repair_vs_serde", raw)
    # readings: the project's own real files in a spread of dialects (the header's
    # first byte picks one of Dialect::ALL, then its form and way), whole and in 3s.
    for f in sorted((ROOT.parent / "tests" / "fixtures" / "files").iterdir()):
        for dialect in range(0, 40, 3):
            for way in range(4):
                chunk = 3 if (dialect + way) % 2 else 0
                header = bytes([dialect, 0, way]) + bytes([chunk] * 6)
                put("readings", header + f.read_bytes())
    if args.extra:
        extra = pathlib.Path(args.extra)
        traffic = extra / "corpus" / "mlx-serve-traffic.jsonl"
        if traffic.exists():
            for line in traffic.read_text().splitlines()[:400]:
                seed_parse(json.loads(line)["raw"].encode())
        for suite in sorted((extra / "peer-suites").glob("*.jsonl")):
            for line in suite.read_text().splitlines():
                case = json.loads(line)
                put("repair_vs_serde", case["input"].encode())
                put("schema_prior", bytes([3, 0, 1]) + case["input"].encode()[:200])
        # Every input a target found that broke an invariant: a seed for every target
        # (the header bytes of one target are a valid header of another).
        findings = extra / "fuzz-findings"
        if findings.is_dir():
            for f in sorted(findings.iterdir()):
                if f.name != "README.md" and f.is_file():
                    for t in TARGETS:
                        put(t, f.read_bytes())
    for t in sorted(OUT.iterdir()):
        print(f"{t.name}: {len(os.listdir(t))} seeds")


if __name__ == "__main__":
    main()

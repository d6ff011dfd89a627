#!/usr/bin/env python3
"""Invariants over real captured model output (../shared/corpus/*.jsonl).

Runs `toolsift parse --jsonl` over every record in several chunkings and fails on:
markup in visible content, released arguments that are not strict JSON objects,
results that differ by chunking, and released arguments that `toolsift repair`
would change (repairing the engine's own output must change nothing).

Usage: corpus_check.py TOOLSIFT_BIN CORPUS.jsonl
"""
import json, subprocess, sys

binary, corpus = sys.argv[1], sys.argv[2]
CHUNKINGS = ["whole", "bytes", "7", "random:1", "random:2", "random:42"]
MARKUP = ["<tool_call", "</tool_call", "<function=", "</function>", "<parameter=", "</parameter>",
          "<|tool_call>", "<tool_call|>", "<|\"|>", "<think>", "</think>", "<|channel>", "<channel|>",
          "<|im_end|>", "<|endoftext|>"]

def strict(text):
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))

lines = open(corpus, encoding="utf-8").read().splitlines()
results = {}
for mode in CHUNKINGS:
    out = subprocess.run([binary, "parse", "--jsonl", "--chunks", mode], input="\n".join(lines).encode(),
                         capture_output=True, check=True)
    results[mode] = [json.loads(l) for l in out.stdout.decode().splitlines()]
    assert len(results[mode]) == len(lines), (mode, len(results[mode]), len(lines))

failures = []
base = results["whole"]
for mode in CHUNKINGS[1:]:
    for i, (a, b) in enumerate(zip(base, results[mode])):
        if a != b:
            failures.append(f"record {i}: chunking {mode} differs from whole:\n  whole: {json.dumps(a)[:400]}\n  {mode}: {json.dumps(b)[:400]}")

released = []
for i, msg in enumerate(base):
    for m in MARKUP:
        if m in msg["content"]:
            failures.append(f"record {i}: markup {m!r} in content: {msg['content'][:300]!r}")
    for call in msg["tool_calls"]:
        try:
            value = strict(call["function"]["arguments"])
            if not isinstance(value, dict):
                failures.append(f"record {i}: released arguments are not an object")
        except ValueError as e:
            failures.append(f"record {i}: released arguments not strict JSON ({e})")
        released.append((i, call["function"]["arguments"]))
    for inc in msg["incomplete_calls"]:
        try:
            strict(inc["arguments"])
        except ValueError as e:
            failures.append(f"record {i}: incomplete call's completed members are not strict JSON ({e})")
    if msg["finish_reason"] == "tool_calls" and not msg["tool_calls"]:
        failures.append(f"record {i}: finish_reason tool_calls without calls")

stdin = "".join(json.dumps({"input": a}) + "\n" for _, a in released)
out = subprocess.run([binary, "repair", "--jsonl"], input=stdin.encode(), capture_output=True, check=True)
for (i, args), res in zip(released, [json.loads(l) for l in out.stdout.decode().splitlines()]):
    if res["output"] != args or res["repairs"]:
        failures.append(f"record {i}: repairing released arguments changed them: {res}")

calls = sum(len(m["tool_calls"]) for m in base)
incomplete = sum(len(m["incomplete_calls"]) for m in base)
repaired = sum(1 for m in base for c in m["tool_calls"] if c["repairs"])
for f in failures[:40]:
    print("FAIL", f)
print(f"corpus: {len(lines)} records x {len(CHUNKINGS)} chunkings; {calls} calls released "
      f"({repaired} repaired), {incomplete} not released")
print(f"{len(lines) - len({f.split(':')[0] for f in failures})} passed, {len({f.split(':')[0] for f in failures})} failed")
sys.exit(1 if failures else 0)

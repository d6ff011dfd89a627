#!/usr/bin/env python3
"""Real captured model output (../shared/corpus/*.jsonl), per record against committed
expectations.

Every record is parsed with `auto` and its tools by `toolsift parse --jsonl` in six
chunkings. A record breaks the invariants on: markup in visible content, released
arguments that are not strict JSON objects (or a not-released call's completed members
that are not strict JSON), results that differ by chunking, released arguments that
`toolsift repair` would change, and `finish_reason: tool_calls` without a call.

`corpus_expected.json` beside this script holds every record's outcome (keyed by a hash of
its tools and raw output): the calls released, by name, and the calls not released, by
reason, with a hash of their arguments and the released calls' repairs:

    "KEY": "released read_file,write_file; held truncated ~1a2b3c4d"
    "KEY": {"outcome": ..., "fails": WHAT, "because": WHY, "fix": HOW}
                                              a record that breaks an invariant today

The corpus has no expected answer, so no change can be judged better or worse by a
script: any change of a record's outcome fails the run, named with the record, until it is
reviewed and blessed; a broken invariant fails unless the entry lists it as it breaks
today. An entry whose record is gone fails, and so does a run over fewer than 400
records (the floor).

Usage: corpus_check.py TOOLSIFT_BIN CORPUS.jsonl
       corpus_check.py TOOLSIFT_BIN CORPUS.jsonl --bless
           rewrite corpus_expected.json from this run (known failures keep `because` and
           `fix`; a new one is written without them and the run fails until they are
           filled in); prints how many entries changed and which. Refused under CI=true.
Replay one record: pick its line from the corpus into a file and run
`toolsift parse --jsonl --chunks CHUNKING < FILE`.
"""
import hashlib, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratchet  # noqa: E402

FLOOR = 400
CHUNKINGS = ["whole", "bytes", "7", "random:1", "random:2", "random:42"]
MARKUP = ["<tool_call", "</tool_call", "<function=", "</function>", "<parameter=", "</parameter>",
          "<|tool_call>", "<tool_call|>", "<|\"|>", "<think>", "</think>", "<|channel>", "<channel|>",
          "<|im_end|>", "<|endoftext|>"]

args = sys.argv[1:]
if len(args) < 2 or "--help" in args or "-h" in args:
    sys.exit(__doc__)
binary, corpus = args[0], args[1]
bless = ratchet.bless_requested(args)
here = os.path.dirname(os.path.abspath(__file__))
expected = ratchet.Ratchet(f"{here}/corpus_expected.json", "corpus", FLOOR)


def strict(text):
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


def parse(lines, chunks):
    out = subprocess.run([binary, "parse", "--jsonl", "--chunks", chunks], input="\n".join(lines).encode(),
                         capture_output=True)
    if out.returncode != 0:
        sys.exit(f"toolsift parse --jsonl --chunks {chunks} failed: {out.stderr.decode()}")
    results = [json.loads(l) for l in out.stdout.decode().split("\n") if l]
    assert len(results) == len(lines), (chunks, len(results), len(lines))
    return results


lines = [l for l in open(corpus, encoding="utf-8").read().split("\n") if l.strip()]
records = [json.loads(l) for l in lines]
keys = [hashlib.sha1(json.dumps([r.get("tools"), r["raw"]]).encode()).hexdigest()[:10] for r in records]
results = {mode: parse(lines, mode) for mode in CHUNKINGS}
base = results["whole"]

# Repairing released arguments again must change nothing (invariant 7), all in one process.
released = [(i, c["function"]["arguments"]) for i, m in enumerate(base) for c in m["tool_calls"]]
stdin = "".join(json.dumps({"input": a}) + "\n" for _, a in released)
out = subprocess.run([binary, "repair", "--jsonl"], input=stdin.encode(), capture_output=True, check=True)
again = {}
for (i, args_), res in zip(released, [json.loads(l) for l in out.stdout.decode().split("\n") if l]):
    if res["output"] != args_ or res["repairs"]:
        again.setdefault(i, f"repairing released arguments changed them: {res}")


def broken(i, msg):
    """The first invariant record `i` breaks, or None."""
    for mode in CHUNKINGS[1:]:
        if results[mode][i] != msg:
            return f"chunking {mode} differs from whole: {json.dumps(results[mode][i])[:300]}"
    for m in MARKUP:
        if m in msg["content"]:
            return f"markup {m!r} in content: {msg['content'][:300]!r}"
    for call in msg["tool_calls"]:
        try:
            if not isinstance(strict(call["function"]["arguments"]), dict):
                return "released arguments are not an object"
        except ValueError as e:
            return f"released arguments not strict JSON ({e})"
    for inc in msg["incomplete_calls"]:
        try:
            strict(inc["arguments"])
        except ValueError as e:
            return f"an incomplete call's completed members are not strict JSON ({e})"
    if msg["finish_reason"] == "tool_calls" and not msg["tool_calls"]:
        return "finish_reason tool_calls without calls"
    return again.get(i)


def outcome(msg):
    names = ",".join(c["function"]["name"] for c in msg["tool_calls"]) or "-"
    held = ",".join(c["reason"] for c in msg["incomplete_calls"]) or "-"
    calls = [[c["function"]["name"], c["function"]["arguments"], c["repairs"]] for c in msg["tool_calls"]]
    calls += [[c["name"], c["reason"], c["arguments"]] for c in msg["incomplete_calls"]]
    return f"released {names}; held {held} ~{hashlib.sha1(json.dumps(calls).encode()).hexdigest()[:8]}"


def needs_hand(entry):
    if isinstance(entry, dict) and not (entry.get("because") and entry.get("fix")):
        return "`because` (why it breaks) and `fix` (what will fix it)"
    return None


counts = {"calls": 0, "repaired": 0, "held": 0, "broken": 0}
for i, (key, msg) in enumerate(zip(keys, base)):
    counts["calls"] += len(msg["tool_calls"])
    counts["repaired"] += sum(1 for c in msg["tool_calls"] if c["repairs"])
    counts["held"] += len(msg["incomplete_calls"])
    why = broken(i, msg)
    counts["broken"] += why is not None
    now = outcome(msg)
    entry = expected.entry(key)
    was_outcome = entry.get("outcome") if isinstance(entry, dict) else entry
    was_fails = entry.get("fails") if isinstance(entry, dict) else None
    new_entry = now
    if why:
        new_entry = {"outcome": now, "fails": why}
        for k in ("because", "fix"):
            if isinstance(entry, dict) and k in entry:
                new_entry[k] = entry[k]
    problems = []
    if why and why != was_fails:
        problems.append(f"breaks an invariant{' differently' if was_fails else ''}: {why}")
    if was_outcome is not None and now != was_outcome:
        problems.append(f"outcome changed: was {was_outcome!r}, now {now!r} (review, then --bless)")
    better = f"keeps every invariant now (entry: {was_fails!r})" if was_fails and not why else ""
    verdict = ratchet.WORSE if problems else ratchet.BETTER if better else ratchet.SAME
    expected.verdict(key, verdict, new_entry, "; ".join(problems) or better, label=f"record {i} ({key})")

print(f"corpus: {len(lines)} records x {len(CHUNKINGS)} chunkings; {counts['calls']} calls released "
      f"({counts['repaired']} repaired), {counts['held']} not released; {counts['broken']} records break an invariant")
sys.exit(expected.finish(bless, needs_hand))

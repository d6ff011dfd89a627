#!/usr/bin/env python3
"""`toolsift repair` over every input of the peer JSON-repair suites
(../shared/peer-suites/*.jsonl, README beside it), per case against committed expectations.

Absolute, whatever any entry says (the README's two absolute checks, and invariant 7):
  - every case tagged `valid` (and strict JSON) comes back byte-identical, no repair;
  - every output, for every input of every suite, is strict JSON, and repairing it again
    changes nothing and reports nothing.

By value, per case: `peer_suites_expected.json` beside this script holds, for every case
(`SUITE:HASH` of its name, input, options, schema and expected value), either `same` (our
output has the peer's expected value; where the peer raises or returns nothing, we return
no output) or the
group of differences it belongs to and a hash of the output we give (`GROUP ~HASH`). Each
group in the file's `groups` says why we differ: `deliberate` (where the choice is
documented) or a known gap with its `fix`. Membership is checked against the group's
kind, so a case cannot sit in a group whose reason is not its own:
  peer_option     the case runs under a peer option (`options`: a partial mode, a strict
                  mode) toolsift::repair does not have
  peer_schema     a schema-guided case (a target type): toolsift::repair takes none;
                  schemas act on calls through `Tools`
  peer_refuses    the peer expects an error or nothing, we return JSON (we repair what we
                  can read)
  SUITE/KIND      the cases of one suite and kind
A case that gave the peer's value and no longer does, or whose differing output changed,
fails the run, named with its input; a case that now gives the peer's value is reported,
to be tightened with --bless. Rates per suite are printed, not gated. Fewer than 2500
inputs checked fails (the floor).

Usage: peer_suites.py TOOLSIFT_BIN SHARED_DIR [--by-kind]
       peer_suites.py TOOLSIFT_BIN SHARED_DIR --bless
           rewrite the cases of peer_suites_expected.json from this run, putting a new
           difference in its group (a new group is written without its reason, and the
           run fails until it has one); prints how many entries changed and which.
           Refused under CI=true.
Without SHARED_DIR/peer-suites it fails under CI=true and is skipped elsewhere.
"""
import collections, glob, hashlib, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratchet  # noqa: E402

FLOOR = 2500

args = sys.argv[1:]
if len(args) < 2 or "--help" in args or "-h" in args:
    sys.exit(__doc__)
binary, shared = args[0], args[1]
by_kind = "--by-kind" in args
bless = ratchet.bless_requested(args)

paths = sorted(glob.glob(f"{shared}/peer-suites/*.jsonl"))
if not paths:
    if os.environ.get("CI") == "true":
        sys.exit(f"FAIL {shared}/peer-suites not found (required under CI)")
    print(f"{shared}/peer-suites not found: peer suite check skipped")
    sys.exit(0)

here = os.path.dirname(os.path.abspath(__file__))
expected = ratchet.Ratchet(f"{here}/peer_suites_expected.json", "peer suites", FLOOR, section="cases")
groups = expected.doc.setdefault("groups", {})


def strict(text):
    """serde_json's strictness: no NaN/Infinity, no control characters in strings."""
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


def digest(*parts):
    return hashlib.sha1(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:10]


def repair(inputs):
    stdin = "".join(json.dumps({"input": i}) + "\n" for i in inputs)
    out = subprocess.run([binary, "repair", "--jsonl"], input=stdin.encode(), capture_output=True)
    if out.returncode != 0:
        sys.exit(f"toolsift repair --jsonl failed: {out.stderr.decode()}")
    results = [json.loads(l) for l in out.stdout.decode().split("\n") if l]
    assert len(results) == len(inputs), (len(results), len(inputs))
    return results


cases = []
for path in paths:
    suite = os.path.basename(path)[: -len(".jsonl")]
    for line in open(path, encoding="utf-8"):
        if line.strip():
            c = json.loads(line)
            key = f"{suite}:{digest(c.get('name'), c['input'], c.get('options'), c.get('schema'), c.get('expected'))}"
            cases.append((key, suite, c))
results = repair([c["input"] for _, _, c in cases])

# Absolute: strict output everywhere, and repairing our own output changes nothing.
outputs = [r["output"] for r in results if r["output"] is not None]
again = repair(outputs)
it = iter(again)
strict_checked = 0
for (key, suite, c), r in zip(cases, results):
    if r["output"] is None:
        continue
    twice = next(it)
    strict_checked += 1
    try:
        strict(r["output"])
    except ValueError as e:
        expected.problem(f"{key} ({c.get('name')!r}): output not strict JSON ({e}): {c['input']!r} -> {r['output']!r}")
    if twice["output"] != r["output"] or twice["repairs"]:
        expected.problem(f"{key}: repairing our output changed it: {r['output']!r} -> {twice}")

# Absolute: valid input passes through byte-identical.
valid = 0
for (key, suite, c), r in zip(cases, results):
    if "valid" not in (c.get("tags") or []):
        continue
    try:  # json5-style "valid" inputs (NaN, Infinity) are not JSON: strict output cannot keep them
        strict(c["input"])
    except ValueError:
        continue
    valid += 1
    if r["output"] != c["input"] or r["repairs"]:
        expected.problem(f"{key} ({suite} {c.get('name')!r}): valid input changed: {c['input']!r} -> {r}")


def same_value(c, out):
    want = c.get("expected")
    if want is None or want == "":
        # The peer raises, or returns nothing (an empty text is no JSON): we return none.
        return out is None
    if out is None:
        return False
    try:
        return json.loads(out) == json.loads(want)
    except ValueError:
        return False


def group_of(suite, c, out):
    """The group a new difference goes to."""
    if c.get("options"):
        return "peer_option"
    if c.get("schema"):
        return "peer_schema"
    if c.get("expected") in (None, "") and out is not None:
        return "peer_refuses"
    return f"{suite}/{c.get('kind') or ''}"


def belongs(group, suite, c, out):
    """Whether the case fits the group's stated reason."""
    if group == "peer_option":
        return bool(c.get("options"))
    if group == "peer_schema":
        return bool(c.get("schema")) and not c.get("options")
    if group == "peer_refuses":
        return c.get("expected") in (None, "") and out is not None
    return group == f"{suite}/{c.get('kind') or ''}"


score = collections.defaultdict(lambda: [0, 0])
kinds = collections.defaultdict(lambda: [0, 0])
used = collections.Counter()
for (key, suite, c), r in zip(cases, results):
    out = r["output"]
    ok = same_value(c, out)
    score[suite][0] += ok
    score[suite][1] += 1
    kinds[(suite, c.get("kind") or "")][0] += ok
    kinds[(suite, c.get("kind") or "")][1] += 1
    entry = expected.entry(key)
    shown = f"{c.get('name')!r}: {c['input'][:120]!r} -> {out[:120] if out else out!r}, peer {(c.get('expected') or 'an error')[:120]!r}"
    if ok:
        verdict = ratchet.BETTER if entry not in (None, "same") else ratchet.SAME
        expected.verdict(key, verdict, "same", f"gives the peer's value now ({shown}; entry {entry!r})" if verdict == ratchet.BETTER else "")
        continue
    now_hash = digest(out)
    if isinstance(entry, str) and entry != "same":
        group, _, was_hash = entry.partition(" ~")
        if not belongs(group, suite, c, out):
            group = group_of(suite, c, out)
            expected.problem(f"{key}: listed in {entry.split(' ~')[0]!r}, whose reason is not its own ({shown})")
    else:
        group, was_hash = group_of(suite, c, out), None
    used[group] += 1
    new_entry = f"{group} ~{now_hash}"
    if entry == "same":
        expected.verdict(key, ratchet.WORSE, new_entry, f"gave the peer's value, now differs: {shown}")
    elif was_hash is not None and was_hash != now_hash:
        expected.verdict(key, ratchet.WORSE, new_entry, f"a listed difference whose output changed (review, then --bless): {shown}")
    else:
        expected.verdict(key, ratchet.SAME, new_entry)

if strict_checked + sum(1 for r in results if r["output"] is None) < FLOOR:
    expected.problem(f"strict output checked on {strict_checked} outputs of {len(cases)} inputs, fewer than {FLOOR}")
print("| suite | cases | same value | share |")
print("|---|---:|---:|---:|")
for s, (ok, n) in sorted(score.items()):
    print(f"| {s} | {n} | {ok} | {100 * ok / max(n, 1):.0f}% |")
if by_kind:
    for (s, k), (ok, n) in sorted(kinds.items()):
        if ok < n:
            print(f"  {s:28} {k:40} {ok}/{n}")
print(f"absolute: {valid} valid inputs byte-identical; {strict_checked} outputs of {len(cases)} inputs strict "
      f"JSON and unchanged when repaired again")
print(f"differences by group: {len(used)} groups, {sum(used.values())} cases")
for g in sorted(set(used) - set(groups)):
    groups[g] = {"reason": None}
unused = sorted(set(groups) - set(used))
for g in sorted(groups):
    info = groups[g]
    if g in unused:
        if bless:
            del groups[g]
        else:
            expected.problem(f"group {g!r} has no case (--bless drops it)")
    elif not info.get("reason") or not (info.get("deliberate") or info.get("fix")):
        expected.problem(f"group {g!r} ({used[g]} cases) needs a `reason` and either `deliberate` (where the "
                         f"choice is documented) or `fix` (what will fix it)")
sys.exit(expected.finish(bless))

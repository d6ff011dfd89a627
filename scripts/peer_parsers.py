#!/usr/bin/env python3
"""The peer tool-parser cases (../shared/peer-parsers/cases.jsonl, README beside it):
every case is parsed with its dialect and with `auto`, in one
`toolsift parse --jsonl` process each way, and judged as the README says: the call count
(per `calls_match`), names in order, arguments by parsed value (per `args_match`), and
the content after trimming blanks when it is asserted.

Cases where our result deliberately differs from the peer's test are listed in
`peer_parsers_differences.json` beside this script, by id, with the rule that applies
(the README's four, and `prose_kept`: call syntax inside prose is not a call); each
rule says what we do instead and is checked, not waved through. An `undeclared_tool`
entry may list the names the model `called` (undeclared, which the peer renamed to a
declared tool or left as text): each must be reported unknown_tool and none shown.

A case whose `dialect` is null (the data predates our dialect) is parsed named with
its `source_dialect`, which must be one of our dialect names or aliases (`toolsift
dialects`): every case has a dialect, or the check fails.

Prints both pass rates and the failures by source dialect. Exits 1 on markup in
visible content (a leak), on any released argument that is not strict JSON, on a listed
difference whose id is not a case, and on a pass rate below the thresholds.

`--named-leaks N` and `--auto-leaks N` allow N leaking cases in that run (0 by default:
the target). Without SHARED_DIR/peer-parsers the check fails under CI (CI=true) and is
skipped, saying so, elsewhere.

Usage: peer_parsers.py TOOLSIFT_BIN SHARED_DIR [--named PCT] [--auto PCT]
                       [--named-leaks N] [--auto-leaks N] [--verbose]
"""
import collections, json, os, re, subprocess, sys

args = sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
binary, shared = args[0], args[1]
opts = {"--named": 0.0, "--auto": 0.0, "--named-leaks": 0.0, "--auto-leaks": 0.0}
verbose = "--verbose" in args
for flag in opts:
    if flag in args:
        opts[flag] = float(args[args.index(flag) + 1])

if not os.path.isfile(f"{shared}/peer-parsers/cases.jsonl"):
    if os.environ.get("CI") == "true":
        sys.exit(f"FAIL {shared}/peer-parsers/cases.jsonl not found (required under CI)")
    print(f"{shared}/peer-parsers not found: peer parser check skipped")
    sys.exit(0)
cases = [json.loads(l) for l in open(f"{shared}/peer-parsers/cases.jsonl", encoding="utf-8") if l.strip()]
here = os.path.dirname(os.path.abspath(__file__))
differences = json.load(open(f"{here}/peer_parsers_differences.json", encoding="utf-8"))
by_id = {c["id"]: c for c in cases}
unknown = [d for d in differences if d not in by_id]

# Markup that must never reach visible text: special tokens, tags, bracket markers.
MARKUP = re.compile(
    r"<\|[^\s<>|]{1,40}\|>|<\|[A-Za-z_\"]{1,40}>|<[A-Za-z_]{1,40}\|>|<｜[^<>｜]{0,40}｜?>?|<｜"
    r"|\[(?:TOOL_CALLS|ARGS|CALL_ID|TOOL_RESULTS)\]|\]<\]minimax\[>\["
    r"|</?[A-Za-z_][\w:.-]*(?:=[^<>]*)?\s*/?>|<(?:function|parameter)=")


def strict(text):
    """serde_json's strictness: no NaN/Infinity, no control characters in strings."""
    return json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


def run(dialects):
    stdin = ""
    for case, dialect in zip(cases, dialects):
        rec = {"raw": case["raw"], "dialect": dialect}
        if case["tools"] is not None:
            rec["tools"] = case["tools"]
        stdin += json.dumps(rec) + "\n"
    out = subprocess.run([binary, "parse", "--jsonl"], input=stdin.encode(), capture_output=True)
    if out.returncode != 0:
        sys.exit(f"toolsift parse --jsonl failed: {out.stderr.decode()}")
    results = [json.loads(l) for l in out.stdout.decode().split("\n") if l]
    assert len(results) == len(cases), (len(results), len(cases))
    return results


def at(value, path):
    for step in path:
        value = value[step]
    return value


def declared(case):
    return {t.get("function", t).get("name") for t in case["tools"] or []}


def judge_calls(want, calls, exp_calls, match):
    """Why released `calls` do not meet `exp_calls`, or None."""
    if match == "exact" and len(calls) != len(exp_calls):
        return f"{len(calls)} calls, want {len(exp_calls)}"
    if match == "prefix" and len(calls) < len(exp_calls):
        return f"{len(calls)} calls, want at least {len(exp_calls)}"
    if match == "unchecked":
        return None
    for i, (exp, got) in enumerate(zip(exp_calls, calls)):
        if exp["name"] is not None and got["name"] != exp["name"]:
            return f"call {i}: name {got['name']!r}, want {exp['name']!r}"
        try:
            value = json.loads(got["arguments"])
        except ValueError:
            return f"call {i}: arguments not JSON"
        kind = exp["args_match"]
        if kind == "exact" and value != exp["arguments"]:
            return f"call {i}: arguments {got['arguments']}, want {json.dumps(exp['arguments'])}"
        if kind == "subset":
            for path, v in exp.get("args_paths", []):
                try:
                    ok = at(value, path) == v
                except (KeyError, IndexError, TypeError):
                    ok = False
                if not ok:
                    return f"call {i}: {path} not {v!r} in {got['arguments']}"
            for path, key in exp.get("args_contains", []):
                try:
                    ok = key in at(value, path)
                except (KeyError, IndexError, TypeError):
                    ok = False
                if not ok:
                    return f"call {i}: no {key!r} at {path} in {got['arguments']}"
            text = json.dumps(value, ensure_ascii=False)
            for s in exp.get("args_substrings", []):
                if s not in text:
                    return f"call {i}: {s!r} not in {got['arguments']}"
    return None


def judge_content(exp, content):
    if exp.get("content") is not None and content.strip() != exp["content"].strip():
        return f"content {content!r}, want {exp['content']!r}"
    for s in exp.get("content_contains", []):
        if s not in content:
            return f"content {content!r} lacks {s!r}"
    for s in exp.get("content_lacks", []):
        if s in content:
            return f"content {content!r} has {s!r}"
    return None


THINK = re.compile(r"<(think|seed:think)>.*?</\1>|^.*?</(think|seed:think)>", re.S)


def subsequence(small, big):
    it = iter(big)
    return all(ch in it for ch in small)


def judge(case, msg):
    """(passed, why, rule applied) for one case's message."""
    exp = case["expected"]
    calls = [c["function"] for c in msg["tool_calls"]]
    exp_calls, match = exp["calls"], exp["calls_match"]
    rule = differences.get(case["id"], {}).get("rule")
    content_exp = exp
    if rule == "reasoning":
        # The peer leaves reasoning in content; we move it out, and nothing else changes.
        want = THINK.sub("", exp["content"] or "")
        content_exp = dict(exp, content=want)
        if not msg["reasoning_content"].strip():
            return False, "no reasoning_content", rule
    elif rule == "text_kept":
        # The peer drops visible text around calls; we keep it: our content holds what the
        # peer expects and is otherwise made of the raw output's characters, in order.
        content_exp = {}
        want = (exp.get("content") or "").strip()
        if want not in msg["content"] or not subsequence(msg["content"], case["raw"]):
            return False, f"content {msg['content']!r} is not the kept raw text", rule
    elif rule == "undeclared_tool":
        # Calls to tools the request does not declare are reported unknown_tool, not released.
        tools = declared(case)
        rejected = [c["name"] for c in exp_calls if c["name"] not in tools]
        exp_calls = [c for c in exp_calls if c["name"] in tools]
        called = differences[case["id"]].get("called")
        if called is not None:
            # The names the model called, which the peer renamed to a declared tool or
            # left as raw text: none is released, each is reported, none is shown.
            rejected, exp_calls = called, []
            content_exp = {k: v for k, v in exp.items() if k != "content_contains"}
            if any(name in msg["content"] for name in called):
                return False, f"an undeclared call shown as text: {msg['content']!r}", rule
        got = [c for c in msg["incomplete_calls"] if c["reason"] == "unknown_tool"]
        if len(got) < len(rejected) or [c["name"] for c in got[: len(rejected)]] != rejected:
            return False, f"undeclared calls not reported unknown_tool: {msg['incomplete_calls']}", rule
    elif rule == "cut_off":
        # A call cut off before its closer is reported (truncated or missing its closer), not
        # released and not left as raw text; the calls before it are judged as usual.
        content_exp = {k: v for k, v in exp.items() if k != "content"}
        cut = [c for c in msg["incomplete_calls"] if c["reason"] in ("truncated", "missing_closer")]
        if not cut:
            return False, f"no cut-off call reported: {msg['incomplete_calls']}", rule
        n = differences[case["id"]].get("released", len(exp_calls))
        exp_calls, match = exp_calls[:n], "exact"
    elif rule == "prose_kept":
        # Call syntax inside prose is not a call: nothing released, all of it text.
        if msg["tool_calls"] or msg["content"] != case["raw"]:
            return False, f"not kept as text: {msg['content']!r}, {len(msg['tool_calls'])} calls", rule
        return True, None, rule
    elif rule is not None:
        sys.exit(f"{case['id']}: unknown rule {rule!r}")
    why = judge_calls(exp, calls, exp_calls, match) or judge_content(content_exp, msg["content"])
    return why is None, why, rule


def leaks(case, msg):
    allowed = (case["expected"].get("content") or "") + "".join(case["expected"].get("content_contains", []))
    return [m for m in MARKUP.findall(msg["content"]) if m not in allowed and m in case["raw"]]


def bad_args(msg):
    bad = []
    for c in msg["tool_calls"]:
        try:
            value = strict(c["function"]["arguments"])
            if not isinstance(value, dict):
                bad.append(c["function"]["arguments"])
        except ValueError:
            bad.append(c["function"]["arguments"])
    return bad


def our_dialects():
    """Every name and alias `toolsift dialects` lists, normalized as the CLI reads them."""
    out = subprocess.run([binary, "dialects"], capture_output=True, check=True).stdout.decode()
    names = set()
    for line in out.splitlines():
        if not line or line.startswith((" ", "\t")):
            continue
        head, _, also = line.partition("(also ")
        names.add(head.strip().rstrip("*").strip())
        names.update(a.strip() for a in also.rstrip(")").split(",") if a.strip())
    return {norm(n) for n in names}


def norm(name):
    return name.lower().replace("-", "_")


known = our_dialects()
named = []
hard_named = []
for c in cases:
    name = c["dialect"] or c["source_dialect"]
    if norm(name) not in known:
        hard_named.append(f"{c['id']}: no dialect of ours for {name!r}")
        name = "auto"
    named.append(name)
named_idx = [i for i, c in enumerate(cases) if norm(named[i]) != "auto"]
runs = {
    "named": run(named),
    "auto": run(["auto"] * len(cases)),
}
hard, print_later = list(hard_named), []
rates, leaked = {}, collections.Counter()
for mode, results in runs.items():
    idx = named_idx if mode == "named" else range(len(cases))
    passed, fails, applied = 0, collections.defaultdict(list), collections.Counter()
    for i in idx:
        case, msg = cases[i], results[i]
        ok, why, rule = judge(case, msg)
        passed += ok
        if ok and rule:
            applied[rule] += 1
        if not ok:
            fails[case["source_dialect"]].append((case["id"], why))
        found = sorted(set(leaks(case, msg)))
        if found:
            leaked[mode] += 1
            print_later.append(f"LEAK {mode} {case['id']}: {found[:6]} in content {msg['content'][:200]!r}")
        for a in bad_args(msg):
            hard.append(f"{mode} {case['id']}: released arguments not a strict JSON object: {a!r}")
    rates[mode] = 100.0 * passed / len(idx)
    print(f"== {mode}: {passed}/{len(idx)} pass ({rates[mode]:.1f}%); deliberate differences met: {dict(applied)}")
    for src, items in sorted(fails.items()):
        print(f"  {src}: {len(items)} failing")
        for cid, why in items:
            print(f"    {cid}: {why[:300] if verbose else why[:140]}")
for u in unknown:
    hard.append(f"difference listed for an unknown case: {u}")
for line in print_later:
    print(line)
for h in hard:
    print("FAIL", h)
print(f"peer parsers: named {rates['named']:.1f}%, auto {rates['auto']:.1f}%; cases with markup in content: "
      f"named {leaked['named']}, auto {leaked['auto']}; {len(hard)} other failures")
low = [f"pass rate {m} {rates[m]:.1f}% < {opts['--' + m]}%" for m in rates if rates[m] < opts["--" + m]]
low += [f"{leaked[m]} {m} cases leak markup, allowed {opts[f'--{m}-leaks']:.0f}"
        for m in leaked if leaked[m] > opts[f"--{m}-leaks"]]
for l in low:
    print("FAIL", l)
sys.exit(1 if hard or low else 0)

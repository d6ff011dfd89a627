#!/usr/bin/env python3
"""The peer tool-parser cases (../shared/peer-parsers/cases.jsonl, README beside it), per
case against committed expectations.

Every case is parsed with its dialect (`named`) and with `auto`, in one
`toolsift parse --jsonl` process each way, and judged as the README says: the call count
(per `calls_match`), names in order, arguments by parsed value (per `args_match`), and the
content after trimming blanks when it is asserted; markup in the visible content that the
expectation does not show fails the case too.

`peer_parsers_expected.json` beside this script holds every case's expected outcome, one
line a case:

    "ID": "pass"                      passes named and auto
    "ID": {"rule": RULE, ..., "reason": WHY}
                                      a listed difference: judged by its rule, which checks
                                      what the reason says we do instead
    "ID": {..., "fails": {"named": WHAT, "auto": WHAT}, "because": WHY, "fix": HOW}
                                      a known failure in that run, as it fails today, why,
                                      and what will fix it

The rules (../shared/peer-parsers/README.md has the first four; docs/checks.md argues
`prose_kept` with its case):
  reasoning        the <think> block is reasoning_content, exactly its text; the content is
                   the peer's without it
  text_kept        the peer drops visible text around calls, we keep it: each of `kept` is
                   in our content, which holds the peer's content and is otherwise the raw
                   output's characters in order; calls judged as usual
  undeclared_tool  calls to tools the request does not declare (or the names the model
                   `called`, which the peer renamed or left as text) are reported
                   unknown_tool, in order, and not shown; the declared ones judged as usual
  cut_off          the call cut off at the end (`cut`, its name) is reported truncated or
                   missing its closer, with that name; nothing of it is shown: the content
                   is `shown` (default empty); the `released` calls before it are judged
  prose_kept       call syntax inside prose is not a call: nothing released or reported,
                   the content is the raw output
A rule allows no markup in the content beyond what it says.

A case fails the run when it does worse than its entry (an expected pass fails, a known
failure fails differently), when it has no entry, or when its entry has no case; a case
that passes where its entry lists a failure is reported, to be tightened with --bless.
Released arguments that are not a strict JSON object fail the run whatever the entry
says. Pass rates are printed, not gated. Fewer than 200 cases checked fails (the floor).

A case whose `dialect` is null is parsed named with its `source_dialect`, which must be one
of our dialect names or aliases (`toolsift dialects`). Without SHARED_DIR/peer-parsers
the check fails under CI (CI=true) and is skipped, saying so, elsewhere.

Usage: peer_parsers.py TOOLSIFT_BIN SHARED_DIR [--verbose] [--families]
           --families also prints, per family (the case's `source_dialect`), the cases
           passing named and under auto, as the markdown table of docs/dialects.md;
           that table must be this run's (a difference fails the run; --bless
           rewrites it with the expectations)
       peer_parsers.py TOOLSIFT_BIN SHARED_DIR --bless
           rewrite peer_parsers_expected.json from this run (rules, reasons and fixes kept;
           a new known failure is written without `because` and `fix`, and the run fails
           until they are filled in); prints how many entries changed and which. Refused
           under CI=true.
"""
import collections, json, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ratchet  # noqa: E402

FLOOR = 200
MODES = ("named", "auto")
RULES = ("reasoning", "text_kept", "undeclared_tool", "cut_off", "prose_kept")
# Fields of an entry written by hand; --bless keeps them.
HAND = ("rule", "kept", "called", "cut", "released", "shown", "reason", "because", "fix")

args = sys.argv[1:]
if len(args) < 2 or "--help" in args or "-h" in args:
    sys.exit(__doc__)
binary, shared = args[0], args[1]
verbose = "--verbose" in args
families = "--families" in args
bless = ratchet.bless_requested(args)

if not os.path.isfile(f"{shared}/peer-parsers/cases.jsonl"):
    if os.environ.get("CI") == "true":
        sys.exit(f"FAIL {shared}/peer-parsers/cases.jsonl not found (required under CI)")
    print(f"{shared}/peer-parsers not found: peer parser check skipped")
    sys.exit(0)
cases = [json.loads(l) for l in open(f"{shared}/peer-parsers/cases.jsonl", encoding="utf-8") if l.strip()]
here = os.path.dirname(os.path.abspath(__file__))
expected = ratchet.Ratchet(f"{here}/peer_parsers_expected.json", "peer parsers", FLOOR)

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


def judge_calls(calls, exp_calls, match):
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


# A reasoning block, or (reasoning open) everything up to its closer.
THINK = re.compile(r"<(think|seed:think)>(.*?)</\1>|^(.*?)</(?:think|seed:think)>", re.S)


def subsequence(small, big):
    it = iter(big)
    return all(ch in it for ch in small)


def judge(case, msg, entry):
    """(why it fails or None, markup the content may hold) for one case's message."""
    exp = case["expected"]
    calls = [c["function"] for c in msg["tool_calls"]]
    exp_calls, match = exp["calls"], exp["calls_match"]
    rule = entry.get("rule") if isinstance(entry, dict) else None
    content_exp = exp
    # Without a rule the content may show the markup the peer expects it to show.
    allowed = (exp.get("content") or "") + "".join(exp.get("content_contains", []))
    if rule is not None:
        allowed = ""
    if rule == "reasoning":
        # The peer leaves reasoning in content; we move it out, and nothing else changes.
        peer = exp["content"] or ""
        thought = "".join(m.group(2) if m.group(1) else m.group(3) for m in THINK.finditer(peer))
        content_exp = dict(exp, content=THINK.sub("", peer))
        allowed = content_exp["content"]
        if not thought.strip() or msg["reasoning_content"].strip() != thought.strip():
            return f"reasoning_content {msg['reasoning_content']!r}, want {thought!r}", allowed
    elif rule == "text_kept":
        # The peer drops visible text around calls; we keep it: our content holds the
        # peer's, each kept text, and is otherwise the raw output's characters in order.
        content_exp = {}
        kept = entry.get("kept") or []
        if not kept:
            return "text_kept lists no kept text", allowed
        want = (exp.get("content") or "").strip()
        missing = [k for k in kept if k not in msg["content"]]
        if missing or want not in msg["content"] or not subsequence(msg["content"], case["raw"]):
            return f"content {msg['content']!r} is not the raw text with {kept!r} kept", allowed
    elif rule == "undeclared_tool":
        # Calls to tools the request does not declare are reported unknown_tool, not released.
        tools = declared(case)
        rejected = [c["name"] for c in exp_calls if c["name"] not in tools]
        exp_calls = [c for c in exp_calls if c["name"] in tools]
        called = entry.get("called")
        if called is not None:
            # The names the model called, which the peer renamed to a declared tool or
            # left as raw text: none is released.
            rejected, exp_calls = called, []
            content_exp = {k: v for k, v in exp.items() if k != "content_contains"}
        if not rejected:
            return "undeclared_tool, but every expected call is declared", allowed
        if any(name in msg["content"] for name in rejected):
            return f"an undeclared call shown as text: {msg['content']!r}", allowed
        got = [c["name"] for c in msg["incomplete_calls"] if c["reason"] == "unknown_tool"]
        if got[: len(rejected)] != rejected:
            return f"undeclared calls not reported unknown_tool: {msg['incomplete_calls']}", allowed
    elif rule == "cut_off":
        # The call cut off before its closer is reported (truncated or missing its closer)
        # with its name, not released, and nothing of it is shown; the calls before it
        # are judged as usual.
        name = entry.get("cut")
        if not name:
            return "cut_off names no cut call (`cut`)", allowed
        cut = [c for c in msg["incomplete_calls"]
               if c["reason"] in ("truncated", "missing_closer") and c["name"] == name]
        if not cut:
            return f"{name!r} not reported cut off: {msg['incomplete_calls']}", allowed
        shown = entry.get("shown", "")
        if msg["content"].strip() != shown.strip() or (name in msg["content"] and name not in shown):
            return f"content {msg['content']!r}, want {shown!r}: the cut call is shown", allowed
        content_exp = {}
        exp_calls, match = exp_calls[: entry.get("released", len(exp_calls))], "exact"
    elif rule == "prose_kept":
        # Call syntax inside prose is not a call: nothing released or reported, all text.
        if msg["tool_calls"] or msg["incomplete_calls"] or msg["content"] != case["raw"]:
            return (f"not kept as text: {msg['content']!r}, {len(msg['tool_calls'])} released, "
                    f"{len(msg['incomplete_calls'])} reported"), case["raw"]
        return None, case["raw"]
    elif rule is not None:
        return f"unknown rule {rule!r} (the rules: {', '.join(RULES)})", allowed
    return judge_calls(calls, exp_calls, match) or judge_content(content_exp, msg["content"]), allowed


def leaks(case, msg, allowed):
    return sorted({m for m in MARKUP.findall(msg["content"]) if m not in allowed and m in case["raw"]})


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


def needs_hand(entry):
    """A field an entry still needs written by hand, or None."""
    if not isinstance(entry, dict):
        return None if entry == "pass" else f"to be \"pass\" or an object, not {entry!r}"
    if entry.get("rule") and not entry.get("reason"):
        return "a `reason` (what we do instead, and why it is better)"
    if entry.get("fails") and not (entry.get("because") and entry.get("fix")):
        return "`because` (why it fails) and `fix` (what will fix it)"
    return None


known = our_dialects()
named = []
for c in cases:
    name = c["dialect"] or c["source_dialect"]
    if norm(name) not in known:
        expected.problem(f"{c['id']}: no dialect of ours for {name!r}")
        name = "auto"
    named.append(name)
runs = {"named": run(named), "auto": run(["auto"] * len(cases))}
passed, failing = collections.Counter(), collections.defaultdict(list)
by_family = collections.defaultdict(collections.Counter)
for i, case in enumerate(cases):
    by_family[case["source_dialect"]]["cases"] += 1
    entry = expected.entry(case["id"]) or "pass"
    was = entry.get("fails", {}) if isinstance(entry, dict) else {}
    now = {}
    for mode in MODES:
        msg = runs[mode][i]
        why, allowed = judge(case, msg, entry)
        found = leaks(case, msg, allowed)
        if found and not why:
            why = f"markup in content: {found[:6]} in {msg['content'][:200]!r}"
        for a in bad_args(msg):
            expected.problem(f"{mode} {case['id']}: released arguments not a strict JSON object: {a!r}")
        if why:
            now[mode] = why
            failing[(mode, case["source_dialect"])].append((case["id"], why))
        else:
            passed[mode] += 1
            by_family[case["source_dialect"]][mode] += 1
    worse = [f"{m}: {'was a pass' if m not in was else 'failed ' + repr(was[m][:120]) + ','} "
             f"now fails: {now[m]}" for m in MODES if m in now and now[m] != was.get(m)]
    better = [f"{m} passes now (entry: {was[m][:120]!r})" for m in MODES if m in was and m not in now]
    new_entry = {k: entry[k] for k in HAND if isinstance(entry, dict) and k in entry}
    if now:
        new_entry["fails"] = now
    else:
        new_entry.pop("because", None)
        new_entry.pop("fix", None)
    if not new_entry:
        new_entry = "pass"
    elif "rule" not in new_entry and "fails" not in new_entry:
        new_entry = "pass"
    verdict = ratchet.WORSE if worse else ratchet.BETTER if better else ratchet.SAME
    expected.verdict(case["id"], verdict, new_entry, "; ".join(worse or better))

for mode in MODES:
    n = len(cases)
    print(f"== {mode}: {passed[mode]}/{n} pass ({100.0 * passed[mode] / n:.1f}%), as judged with the listed rules")
    for (m, src), items in sorted(failing.items()):
        if m != mode:
            continue
        print(f"  {src}: {len(items)} failing")
        for cid, why in items:
            print(f"    {cid}: {why[:300] if verbose else why[:140]}")
table = ["| family | cases | named | auto |", "|---|---|---|---|"]
table += [f"| {fam} | {c['cases']} | {c['named']} | {c['auto']} |" for fam, c in sorted(by_family.items())]
table.append(f"| all | {len(cases)} | {passed['named']} ({100.0 * passed['named'] / len(cases):.1f}%) "
             f"| {passed['auto']} ({100.0 * passed['auto'] / len(cases):.1f}%) |")
if families:
    print("\n".join(table))
# docs/dialects.md shows the table: it is this run's (rewritten with --bless).
docs = os.path.join(here, "..", "docs", "dialects.md")
if os.path.isfile(docs):
    text = open(docs, encoding="utf-8").read()
    lines = text.split("\n")
    if table[0] not in lines:
        expected.problem(f"{os.path.relpath(docs)}: no named/auto table ({table[0]!r})")
    else:
        start = lines.index(table[0])
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        if lines[start:end] != table:
            if bless:
                lines[start:end] = table
                open(docs, "w", encoding="utf-8").write("\n".join(lines))
                print(f"bless: rewrote the named/auto table of {os.path.relpath(docs)}")
            else:
                expected.problem(f"{os.path.relpath(docs)}: the named/auto table differs from this run "
                                 "(--families prints it; --bless rewrites it)")
rules = collections.Counter(e.get("rule") for e in expected.entries.values() if isinstance(e, dict) and e.get("rule"))
print(f"listed differences by rule: {dict(rules)}")
sys.exit(expected.finish(bless, needs_hand))

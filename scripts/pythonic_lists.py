#!/usr/bin/env python3
"""Markerless Python call lists under `auto`, against Python itself.

Writes random call lists the way Python prints them (`repr` of strings with quotes,
backslashes, control and non-ASCII characters, numbers, True/False/None, lists, tuples
and dicts), each as the whole output and followed by a line of text, parses them with
`toolsift parse --jsonl` under `auto` with no tools (whole, in random chunks and a byte
at a time, which must agree), and checks that every list is
claimed as calls whose names and arguments are what `ast.literal_eval` reads (positional
arguments keyed `arg0`, `arg1`, ...), the text after it kept, and nothing of the list
shown. A call whose string quotes the value reader cannot tell apart may be reported
`invalid` instead of released (counted; a known gap: the list was validated, so it could
be read strictly); any other outcome fails. The rule that decides what
a call list is lives in src/grammar/call_list.rs; this check holds it to "what is
claimed is read as meant" over the whole class, not a table.

Usage: pythonic_lists.py TOOLSIFT_BIN [N] [SEED]    (default 2000 lists, seed 37)
Exits 1 listing the lists read otherwise.
"""
import ast
import json
import keyword
import random
import subprocess
import sys

args = sys.argv[1:]
if not args or "--help" in args or "-h" in args:
    sys.exit(__doc__)
binary = args[0]
count = int(args[1]) if len(args) > 1 else 2000
rng = random.Random(int(args[2]) if len(args) > 2 else 37)

CHARS = ["a", "Z", " ", "'", '"', "\\", "\n", "\t", "\r", "\x00", "\x07", "\x1b", "é",
         "漢", "😀", "\u200b", "{", "}", "[", "]", "(", ")", ",", "=", ":", "#", "/"]


def string():
    return "".join(rng.choice(CHARS) for _ in range(rng.randint(0, 8)))


def number():
    kind = rng.randint(0, 3)
    if kind == 0:
        return rng.randint(-10**6, 10**6)
    if kind == 1:
        return rng.randint(-10**30, 10**30)
    if kind == 2:
        return rng.uniform(-1e6, 1e6)
    return rng.choice([0.0, -0.0, 1e-300, 1.5e300, 0.1])


def value(depth=0):
    kind = rng.randint(0, 9 if depth < 3 else 5)
    if kind <= 2:
        return string()
    if kind <= 4:
        return number()
    if kind == 5:
        return rng.choice([True, False, None])
    items = [value(depth + 1) for _ in range(rng.randint(0, 3))]
    if kind == 6 or kind == 7:
        return items
    if kind == 8:
        return tuple(items)
    return {string(): v for v in items}


def name():
    first = "abcdefghijklmnopqrstuvwxyz_"
    def word():
        while True:
            w = rng.choice(first) + "".join(rng.choice(first + "0123456789") for _ in range(rng.randint(0, 6)))
            if not keyword.iskeyword(w) and not keyword.issoftkeyword(w):
                return w
    return ".".join(word() for _ in range(rng.choice([1, 1, 1, 2])))


def call():
    positional = [value() for _ in range(rng.choice([0, 0, 1, 2]))]
    keywords = {name().replace(".", "_"): value() for _ in range(rng.randint(0, 4))}
    parts = [repr(v) for v in positional] + [f"{k}={v!r}" for k, v in keywords.items()]
    sep = rng.choice([", ", ",", ",\n    "])
    return f"{name()}({sep.join(parts)})"


lists = []
for _ in range(count):
    text = "[" + ", ".join(call() for _ in range(rng.randint(1, 3))) + "]"
    after = rng.choice(["", "\n", "\nDone, checking now."])
    lists.append((text, after))

batch = "".join(json.dumps({"raw": t + a}) + "\n" for t, a in lists)
runs = []
for chunks in ["whole", "random:37", "1"]:
    out = subprocess.run([binary, "parse", "--jsonl", "--chunks", chunks], input=batch.encode(), capture_output=True)
    runs.append([json.loads(l) for l in out.stdout.decode().splitlines()])
    if len(runs[-1]) != len(lists):
        sys.exit(f"FAIL {len(runs[-1])} messages for {len(lists)} lists ({chunks}): {out.stderr.decode()[:500]}")
messages = runs[0]
for other, chunks in zip(runs[1:], ["random:37", "1"]):
    differ = [i for i, (a, b) in enumerate(zip(messages, other)) if a != b]
    if differ:
        sys.exit(f"FAIL {len(differ)} lists read otherwise in chunks of {chunks}, first: {lists[differ[0]]!r}")

wrong, held_back = [], 0
for (text, after), msg in zip(lists, messages):
    want = []
    for c in ast.parse(text, mode="eval").body.elts:
        args_ = {f"arg{i}": ast.literal_eval(a) for i, a in enumerate(c.args)}
        args_.update({k.arg: ast.literal_eval(k.value) for k in c.keywords})
        want.append((ast.unparse(c.func), json.loads(json.dumps(args_))))
    got = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg.get("tool_calls", [])]
    # A call the engine could not read for sure is reported, never released otherwise
    # than meant: the released ones are the list's calls less those, in order.
    kept_out = [c for c in msg.get("incomplete_calls", []) if c.get("reason") == "invalid"]
    others = [c for c in msg.get("incomplete_calls", []) if c.get("reason") != "invalid"]
    left = list(want)
    for c in kept_out:
        match = next((w for w in left if w[0] == c.get("name")), None)
        if match:
            left.remove(match)
    ok = (got == left and len(got) + len(kept_out) == len(want) and not others
          and msg.get("content") == after)
    held_back += bool(kept_out) and ok
    if not ok:
        wrong.append(f"{text + after!r}\n  got  {got} not released {msg.get('incomplete_calls')} "
                     f"content {msg.get('content')!r}\n  want {want} content {after!r}")

print(f"pythonic lists: {len(lists)} random call lists under auto: {len(lists) - len(wrong) - held_back} "
      f"claimed and read as Python reads them, {held_back} with a call not released (`invalid`: "
      f"its quotes could not be told apart), {len(wrong)} otherwise")
for w in wrong[:20]:
    print("  " + w)
sys.exit(1 if wrong else 0)

#!/usr/bin/env python3
"""The known failure class a fuzz finding belongs to (scripts/fuzz.sh).

Usage: known_class.py TARGET < PANIC_TEXT. Prints the id of the class, or nothing.

Two kinds of class, both committed:
- an entry of fuzz/known_failures.json: the finding's target is listed, its panic text
  holds every `all_of` string and one of the `any_of` strings;
- a wrong release by the `readings` target in a dialect and way whose full real-file
  expectation (tests/expected/real_files.txt) still counts wrong releases: the ratchet
  already admits that class there, and a finding of it is counted, not failed. In a
  dialect and way the ratchet holds at 0 wrong, a wrong release is new and fails.
"""
import json
import re
import sys

WRONG = re.compile(r"^(\S+) \(([^)]*)\) (?:whole|chunked), way ([^:]+): ", re.M)


def ratchet_wrong():
    """{(dialect, way key): wrong releases} of the full run's expectations."""
    out = {}
    for line in open("tests/expected/real_files.txt"):
        f = line.split()
        if len(f) >= 8 and f[0] == "full" and not line.startswith("#"):
            out[(f[1], f[2])] = int(f[7])
    return out


def main():
    target, text = sys.argv[1], sys.stdin.read()
    for k in json.load(open("fuzz/known_failures.json")):
        if (target in k["targets"] and all(s in text for s in k["all_of"])
                and any(s in text for s in k["any_of"])):
            print(k["id"])
            return
    m = WRONG.search(text)
    if target == "readings" and m:
        dialect, way = m.group(1), m.group(3).strip().replace(" + ", "+").replace(" ", "-")
        if ratchet_wrong().get((dialect, way), 0) > 0:
            print("wrong-release-the-real-file-ratchet-counts")


main()

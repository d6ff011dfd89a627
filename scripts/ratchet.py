#!/usr/bin/env python3
"""The ratchet the shared-data checks use (peer_parsers.py, peer_suites.py, corpus_check.py):
a committed file beside the script holds every case's expected outcome, and a run fails
when any case does worse than its entry, naming it. A case that does better is reported so
its entry can be tightened; nothing is judged by a rate.

    ratchet.py                 prints this text

Each script compares one case at a time (how is its own: a pass, a listed difference with
its rule, a known failure with its reason and fix) and tells the ratchet the verdict:
`same`, `better` (reported), `worse` (fails the run) or `new` (a case with no entry: fails
until the file is blessed). An entry whose case is gone fails too, as does a run that
checked fewer cases than the script's floor: a check that checked nothing did not pass.

`--bless` rewrites the file from this run's outcomes (keeping the hand-written fields:
rules, reasons, fixes), prints how many entries changed and which, and fails if an entry
still needs a hand-written field (a new known failure needs its reason and fix). It is
refused under CI=true: CI compares, it never writes.
"""
import json
import os
import sys

SAME, BETTER, WORSE, NEW = "same", "better", "worse", "new"


def bless_requested(argv):
    """Whether `--bless` was given; refused under CI."""
    if "--bless" not in argv:
        return False
    if os.environ.get("CI") == "true":
        sys.exit("FAIL --bless under CI=true: CI compares with the committed expectations, it never writes them")
    return True


class Ratchet:
    """Expected outcomes of `what` (cases of one kind), read from `path`.

    The file is a JSON object; `section` names the member that maps case keys to entries
    (the rest of the object, such as a list of difference groups, is kept as it is)."""

    def __init__(self, path, what, floor, section=None):
        self.path, self.what, self.floor, self.section = path, what, floor, section
        try:
            with open(path, encoding="utf-8") as f:
                self.doc = json.load(f)
        except FileNotFoundError:
            self.doc = {}
        self.entries = self.doc.get(section, {}) if section else self.doc
        self.new_entries = {}
        self.lines = {SAME: [], BETTER: [], WORSE: [], NEW: []}
        self.problems = []

    def entry(self, key):
        """The committed entry of `key`, or None."""
        return self.entries.get(key)

    def verdict(self, key, verdict, new_entry, message="", label=None):
        """Record how case `key` did against its entry; `new_entry` is what --bless writes;
        `label` names the case in messages (the key by default)."""
        if key in self.new_entries:
            if self.new_entries[key] != new_entry:
                self.problems.append(f"{key}: checked twice with different outcomes")
            return
        self.new_entries[key] = new_entry
        if key not in self.entries:
            verdict = NEW
            message = message or f"no entry; this run: {json.dumps(new_entry, ensure_ascii=False)[:200]}"
        label = label or key
        self.lines[verdict].append(f"{label}: {message}" if message else label)

    def problem(self, message):
        """A failure that no entry can excuse (an invariant broken, a rule misused)."""
        self.problems.append(message)

    def finish(self, bless, needs_hand=lambda entry: None):
        """Print the verdicts; bless or compare; return the exit code.

        `needs_hand(entry)` names a field an entry still needs written by hand, or None."""
        checked = len(self.new_entries)
        stale = sorted(set(self.entries) - set(self.new_entries))
        counts = {v: len(self.lines[v]) for v in self.lines}
        print(f"{self.what}: {checked} cases checked against {os.path.relpath(self.path)}: "
              f"{counts[SAME]} as expected, {counts[BETTER]} better, {counts[WORSE]} worse, "
              f"{counts[NEW]} without an entry, {len(stale)} entries without a case")
        for line in self.lines[BETTER]:
            print(f"  BETTER {line}")
        failed = []
        if checked < self.floor:
            failed.append(f"{checked} {self.what} cases checked, fewer than the floor of {self.floor}")
        failed += self.problems
        if bless:
            return self._bless(stale, needs_hand, failed)
        failed += [f"WORSE {line}" for line in self.lines[WORSE]]
        failed += [f"NEW {line} (review it, then --bless)" for line in self.lines[NEW]]
        failed += [f"STALE {key}: an entry for a case that is not in the data (--bless drops it)" for key in stale]
        for key, entry in sorted(self.entries.items()):
            why = needs_hand(entry)
            if why:
                failed.append(f"{key}: the entry needs {why}")
        if self.lines[BETTER]:
            print(f"  {counts[BETTER]} cases do better than their entries: tighten them with --bless")
        for line in failed:
            print(f"FAIL {line}")
        return 1 if failed else 0

    def expand(self):
        """The members written one entry per line: the cases, and every other object
        member of a sectioned file (its list of groups, say)."""
        if not self.section:
            return ()
        return {k for k, v in self.doc.items() if isinstance(v, dict)}

    def _bless(self, stale, needs_hand, failed):
        changed = [k for k in sorted(self.new_entries) if self.entries.get(k) != self.new_entries[k]]
        ordered = {k: self.new_entries[k] for k in sorted(self.new_entries)}
        if self.section:
            self.doc[self.section] = ordered
        else:
            self.doc = ordered
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(dumps(self.doc, self.expand()))
        print(f"bless: wrote {os.path.relpath(self.path)}: {len(changed) + len(stale)} entries changed "
              f"({len([k for k in changed if k not in self.entries])} added, {len(stale)} removed)")
        for k in changed:
            old = self.entries.get(k)
            print(f"  {k}: {short(old)} -> {short(self.new_entries[k])}")
        for k in stale:
            print(f"  {k}: {short(self.entries[k])} -> (removed)")
        for k, entry in ordered.items():
            why = needs_hand(entry)
            if why:
                failed.append(f"{k}: write {why} into the entry by hand")
        for line in failed:
            print(f"FAIL {line}")
        return 1 if failed else 0


def short(entry):
    return "(none)" if entry is None else json.dumps(entry, ensure_ascii=False)[:160]


def dumps(doc, expand=()):
    """The file's text: one member per line, and one entry per line inside the members
    named in `expand`, so a diff shows exactly which cases changed."""
    def lines(obj, indent, deeper):
        pad = " " * indent
        items = []
        for k, v in obj.items():
            text = lines(v, indent + 1, ()) if k in deeper and isinstance(v, dict) else json.dumps(v, ensure_ascii=False)
            items.append(f"{pad}{json.dumps(k, ensure_ascii=False)}: {text}")
        return "{\n" + ",\n".join(items) + "\n" + " " * (indent - 1) + "}" if items else "{}"

    return lines(doc, 1, expand) + "\n"


if __name__ == "__main__":
    print(__doc__)

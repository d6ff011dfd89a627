#!/usr/bin/env python3
"""Every figure in the docs names its check (docs/checks.md, "Numbers in the docs").

A figure is a number with a unit or a comparison: `4.5×`, `98%`, `6 bytes examined per
input byte`, `4 MB`, `12 ms`, `300 files`, `1 MiB`, `2.8 KB`. The paragraph, list item or
table row (or its table's header, or the paragraph right before the table) that holds
one must name a check that fails when the figure stops being true, or the bench or
script that measures it: a path under `tests/`, `benches/`, `scripts/`,
`cli/tests/`, `fuzz/`, `python/tests/`, `python/bench/` or `src/` (a unit test), or `.ci/run`. Code blocks and inline code
are not prose and are skipped; so is a block that names a setting in inline code
(`max_args_bytes`, `--max-body-bytes N`, `ProxyOptions::shutdown_grace`): a setting's
default is the code's own value, tested with the setting.

Usage: doc_numbers.py [FILE.md ...]       (default: docs/*.md and README.md)
Exits 1 listing every figure without a check, by file and line.
"""
import glob
import os
import re
import sys

UNITS = (r"×|x\b|%|per cent|bytes?\b|KB\b|KiB\b|MB\b|MiB\b|GB\b|GiB\b|ns\b|µs\b|us\b|ms\b|s\b|"
         r"seconds?\b|minutes?\b|times\b|levels\b|calls\b|files\b|cases\b|records\b|inputs\b|"
         r"runs\b|chunks?\b|lines\b")
FIGURE = re.compile(r"(?<![\w.\-/#])\d+(?:[.,]\d+)*(?:–\d+(?:\.\d+)?)?\s?(?:" + UNITS + r")")
CHECK = re.compile(r"(?:tests|benches|scripts|cli/tests|fuzz|src|python/tests|python/bench)/[\w./-]+|\.ci/run")
# The default of a named setting (a limit, an option): the code's own value, which the
# setting's tests use.
OPTION = re.compile(r"`(?:--[\w-]+[^`]*|(?:\w+::)?(?:max_\w+|lookahead|shutdown_grace))`")


def blocks(text):
    """(line number, text) of each paragraph, list item and table row, code blocks
    removed. A table row carries its table's header row and the paragraph right before
    the table (its caption), so a check named in either covers the rows."""
    out, cur, start, fenced, header, caption = [], [], 0, False, None, ""

    def close():
        nonlocal cur, caption
        if cur:
            out.append((start, " ".join(cur)))
            caption = " ".join(cur)
        cur = []

    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            close()
            fenced = not fenced
            continue
        if fenced:
            continue
        if stripped.startswith("|"):
            close()
            if header is None:
                header = caption + " " + stripped
            elif not re.match(r"^\|[\s:|-]+\|$", stripped):
                out.append((n, header + " " + stripped))
            continue
        header = None
        if not stripped:
            close()
            continue
        if line.startswith("#"):
            close()
            caption = ""
            continue
        if stripped.startswith(("- ", "* ")) or re.match(r"\d+\. ", stripped):
            close()
        if not cur:
            start = n
        cur.append(line)
    close()
    return out


def figures(text):
    prose = re.sub(r"`[^`]*`", "``", text)
    return FIGURE.findall(prose)


def main(paths):
    missing = []
    for path in paths:
        text = open(path, encoding="utf-8").read()
        for line, block in blocks(text):
            found = figures(block)
            if not found or CHECK.search(block) or OPTION.search(block):
                continue
            missing.append(f"{path}:{line}: {', '.join(found[:4])}: {block.strip()[:140]}")
    for m in missing:
        print(m)
    print(f"doc numbers: {len(missing)} paragraphs, items or rows with a figure and no check named "
          f"({len(paths)} files)")
    return 1 if missing else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--help" in args or "-h" in args:
        sys.exit(__doc__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    default = sorted(glob.glob(f"{root}/docs/*.md")) + [f"{root}/README.md"]
    sys.exit(main(args or [os.path.relpath(p) for p in default]))

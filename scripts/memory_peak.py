#!/usr/bin/env python3
"""Peak memory of `toolsift parse` on a long stream (the figure in docs/performance.md).

Streams MB megabytes (200 by default) of prose with a 2.8 KB Hermes `write_file` call
every 65 KB into `toolsift parse --events --chunks 4` (`auto`), generated on the fly so
the input is never held whole, and reads its output as it comes. The process's own
footprint (code, runtime, buffers: its peak on an input of a few bytes) is measured
first; fails when:

  - the peak resident set on the long input is more than 4 MB over that footprint
    (`--events`: the parser holds at most one call and a 64 KiB read block, whatever the
    input's length);
  - it did not release every call and end the stream (a run that stopped early would
    use little memory and prove nothing).

Prints both peaks and the time. With --message it also runs without `--events`: the
message holds all of its own text, so its peak is checked against 2.5 times the input.

Usage: memory_peak.py TOOLSIFT_BIN [--mb MB] [--message]
"""
import os
import resource
import subprocess
import sys
import threading
import time

args = sys.argv[1:]
if not args or "--help" in args or "-h" in args:
    sys.exit(__doc__)
binary = args[0]
mb = int(args[args.index("--mb") + 1]) if "--mb" in args else 200
GROWTH_MB = 4.0

PROSE = ("The parser reads model output in token-sized chunks; most of it is prose like this, "
         "with `code`, a <b>tag</b>, a [link](x) and numbers 1, 2.5, -3. ").encode()
CONTENT = ("<!doctype html>\\n<html>\\n<body>\\n" + "<p class=\\\"x\\\">line of the file</p>\\n" * 71
           + "</body>\\n</html>")
CALL = ('\n<tool_call>\n{"name": "write_file", "arguments": {"path": "index.html", "content": "'
        + CONTENT + '"}}\n</tool_call>\n').encode()
assert 2700 <= len(CALL) <= 2900, len(CALL)
BLOCK = PROSE * ((65 * 1024 - len(CALL)) // len(PROSE)) + CALL
BLOCKS = mb * 1024 * 1024 // len(BLOCK)


def feed(pipe, blocks):
    try:
        for _ in range(blocks):
            pipe.write(BLOCK)
        pipe.close()
    except BrokenPipeError:
        pass


def run(extra, blocks=BLOCKS):
    """(peak RSS in MB, seconds, calls released, ended) for one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    proc = subprocess.Popen([binary, "parse", "--chunks", "4", *extra], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    writer = threading.Thread(target=feed, args=(proc.stdin, blocks))
    writer.start()
    released, tail, ended = 0, b"", False
    needle = b'"type":"call_finished"' if extra else b'"name":"write_file"'
    while True:
        data = proc.stdout.read(1 << 20)
        if not data:
            break
        window = tail + data
        released += window.count(needle)
        tail = window[-(len(needle) - 1):]
        ended = ended or b'"type":"end"' in window or b'"finish_reason"' in window
    writer.join()
    code = proc.wait()
    seconds = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if code != 0:
        sys.exit(f"FAIL toolsift parse {' '.join(extra)} exited with {code}")
    # ru_maxrss of children is the largest of any child so far: runs go from the smallest.
    if peak < before:
        peak = before
    return peak / 1024.0, seconds, released, ended


failed = []
total = BLOCKS * len(BLOCK)
# Children's peaks only grow: the smallest run first.
base, _, _, _ = run(["--events"], blocks=0)
peak, seconds, released, ended = run(["--events"])
print(f"toolsift parse --events --chunks 4 (auto): {total / 1e6:.0f} MB, {BLOCKS} calls: "
      f"peak RSS {peak:.1f} MB, {peak - base:.1f} MB over its footprint on an empty input "
      f"({base:.1f} MB); {seconds:.1f} s; {released} calls released")
if peak - base > GROWTH_MB:
    failed.append(f"--events peak RSS {peak:.1f} MB, more than {GROWTH_MB} MB over its footprint {base:.1f} MB")
if released != BLOCKS or not ended:
    failed.append(f"--events released {released} of {BLOCKS} calls (ended: {ended})")
if "--message" in args:
    peak, seconds, released, ended = run([])
    print(f"toolsift parse --chunks 4 (auto), the message: peak RSS {peak:.1f} MB, {seconds:.1f} s")
    if peak > 2.5 * total / 1e6:
        failed.append(f"message peak RSS {peak:.1f} MB, over 2.5 x the input")
    if released != BLOCKS or not ended:
        failed.append(f"the message holds {released} of {BLOCKS} calls (ended: {ended})")
for f in failed:
    print(f"FAIL {f}")
sys.exit(1 if failed else 0)

#!/usr/bin/env python3
"""What `toolsift proxy` adds to a request on loopback: the median time of a chat
completion straight from `toolsift replay-upstream` and through the proxy in front of
it, whole and streamed (the recorded hermes-weather output, 16-byte chunks).

    scripts/proxy_overhead.py target/release/toolsift [REQUESTS]

A measurement to read, not a check: it prints the figures and fails only when a server
does not start.
"""

import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}}]


def start(binary, args):
    process = subprocess.Popen([binary, *args], stderr=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, text=True)
    line = process.stderr.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not found:
        process.kill()
        raise SystemExit(f"{args[0]} did not start: {line}")
    return process, int(found.group(1))


def median_us(port, stream, requests):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    body = json.dumps({"model": "hermes-weather", "stream": stream, "tools": TOOLS,
                       "messages": [{"role": "user", "content": "go"}]})
    times = []
    for _ in range(requests):
        start_time = time.perf_counter()
        connection.request("POST", "/v1/chat/completions", body, {"content-type": "application/json"})
        connection.getresponse().read()
        times.append(time.perf_counter() - start_time)
    warm = times[len(times) // 8:]
    return statistics.median(warm) * 1e6


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    binary, requests = argv[1], int(argv[2]) if len(argv) == 3 else 400
    upstream, upstream_port = start(binary, [
        "replay-upstream", "--listen", "127.0.0.1:0", "--piece-bytes", "16",
        "--dir", os.path.join(ROOT, "cli", "tests", "fixtures", "e2e")])
    proxy, proxy_port = start(binary, [
        "proxy", "--listen", "127.0.0.1:0", "--upstream", f"http://127.0.0.1:{upstream_port}/v1",
        "--dialect", "model", "--log", "off"])
    try:
        for stream in (False, True):
            direct = median_us(upstream_port, stream, requests)
            through = median_us(proxy_port, stream, requests)
            print(f"{'streamed' if stream else 'whole'}: direct {direct:.0f} us, "
                  f"through the proxy {through:.0f} us, added {through - direct:.0f} us "
                  f"(median of {requests - requests // 8})")
    finally:
        proxy.terminate()
        upstream.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

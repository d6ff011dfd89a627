#!/usr/bin/env bash
# Make VENV a Python virtual environment holding exactly the clients pinned in
# scripts/e2e-requirements.txt (installed from PyPI when missing or at another version),
# then check the pins again: a different version fails instead of running the e2e
# checks against it. Used by e2e_proxy.sh and e2e_clients.sh.
#
#   scripts/e2e_venv.sh VENV
set -euo pipefail

VENV=${1:?usage: e2e_venv.sh VENV}
REQS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/e2e-requirements.txt"
fail() {
    echo "e2e_venv: FAILED: $*" >&2
    exit 1
}

pinned() {
    "$VENV/bin/python" - "$REQS" <<'PY'
import importlib.metadata as meta, sys
bad = []
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, _, want = line.partition("==")
    try:
        have = meta.version(name)
    except meta.PackageNotFoundError:
        have = None
    if have != want:
        bad.append(f"{name} {have or 'missing'}, pinned {want}")
if bad:
    print("; ".join(bad), file=sys.stderr)
    sys.exit(1)
PY
}

if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" ||
        fail "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)"
fi
if ! pinned 2>/dev/null; then
    echo "e2e_venv: pip install -r scripts/e2e-requirements.txt"
    log=$(mktemp)
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQS" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        fail "pip could not install the pinned clients: is PyPI reachable from this machine?"
    fi
    rm -f "$log"
fi
pinned || fail "the virtual environment at $VENV does not hold the pinned clients"

#!/usr/bin/env bash
# End to end with the official `openai` and `anthropic` Python clients on every surface
# of `toolsift proxy` (see scripts/e2e_clients.py). Needs cargo, python3 (with venv) and
# openssl; installs `openai` and `anthropic` from PyPI into a virtual environment
# (E2E_VENV=DIR reuses/keeps one there). Exits non-zero on any failure.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fail() {
    echo "e2e_clients: FAILED: $*" >&2
    exit 1
}
for tool in cargo python3 openssl; do
    command -v "$tool" >/dev/null || fail "$tool is not installed"
done

echo "e2e_clients: building toolsift (release)"
(cd "$ROOT" && cargo build --release --quiet --bin toolsift) || fail "cargo build"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/toolsift"
[ -x "$BIN" ] || fail "no binary at $BIN"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/toolsift-e2e-clients.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
VENV=${E2E_VENV:-$TMP/venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV" ||
        fail "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)"
fi
if ! "$VENV/bin/python" -c 'import openai, anthropic' 2>/dev/null; then
    echo "e2e_clients: pip install openai anthropic"
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check openai anthropic >"$TMP/pip.log" 2>&1; then
        cat "$TMP/pip.log" >&2
        fail "pip could not install the openai and anthropic packages"
    fi
fi
timeout 300 "$VENV/bin/python" "$ROOT/scripts/e2e_clients.py" "$BIN" || fail "see the FAIL lines above"
echo "e2e_clients: OK"

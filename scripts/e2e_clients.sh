#!/usr/bin/env bash
# End to end with the official `openai` and `anthropic` Python clients on every surface
# of `toolsift proxy` (see scripts/e2e_clients.py). Needs cargo, python3 (with venv) and
# openssl; installs the `openai` and `anthropic` versions pinned in
# scripts/e2e-requirements.txt from PyPI into a virtual environment (scripts/e2e_venv.sh;
# E2E_VENV=DIR reuses/keeps one there). Exits non-zero on any failure.
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
"$ROOT/scripts/e2e_venv.sh" "$VENV" || fail "no virtual environment with the pinned clients"
timeout 300 "$VENV/bin/python" "$ROOT/scripts/e2e_clients.py" "$BIN" || fail "see the FAIL lines above"
echo "e2e_clients: OK"

#!/usr/bin/env bash
# vLLM's and SGLang's own tool parsers against ours (scripts/server_parsers.py): the
# parser names both servers register, and the calls both read from the same outputs.
#
# The servers are installed, with what their parser modules import, from the pinned
# scripts/server_parsers_requirements.txt into a virtual environment at SERVER_VENV
# (default: a temporary one), reused while the file's hash is unchanged. Exit status: 0
# passed, 1 failed, 2 the environment could not be installed.
#
#     SERVER_VENV=DIR TOOLSIFT_BIN=PATH scripts/server_parsers.sh [--verbose]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REQ="$ROOT/scripts/server_parsers_requirements.txt"
BIN=${TOOLSIFT_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/toolsift}
if [ ! -x "$BIN" ]; then
    (cd "$ROOT" && cargo build --release --quiet --bin toolsift)
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/toolsift-servers.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
VENV=${SERVER_VENV:-$TMP/venv}
KEY=$(sha256sum "$REQ" | cut -c1-16)
if [ "$(cat "$VENV/.requirements" 2>/dev/null)" != "$KEY" ]; then
    echo "server_parsers: installing vLLM and SGLang into $VENV (pinned, --no-deps)"
    start=$SECONDS
    rm -rf "$VENV"
    if ! python3 -m venv "$VENV" ||
        ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
            -r "$REQ" >"$TMP/pip.log" 2>&1; then
        tail -20 "$TMP/pip.log" >&2 || true
        echo "server_parsers: could not install the servers" >&2
        exit 2
    fi
    echo "$KEY" >"$VENV/.requirements"
    echo "server_parsers: installed in $((SECONDS - start)) s"
fi
timeout 900 "$VENV/bin/python" "$ROOT/scripts/server_parsers.py" "$BIN" "$@"

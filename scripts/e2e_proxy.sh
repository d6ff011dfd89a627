#!/usr/bin/env bash
# End to end: the official `openai` Python package and curl, through `toolsift proxy`,
# in front of `toolsift replay-upstream` replaying the recorded raw model outputs in
# cli/tests/fixtures/e2e/ (model name M -> M.txt). Needs cargo, python3 (with venv) and curl;
# installs the clients pinned in scripts/e2e-requirements.txt from PyPI into a fresh
# virtual environment (scripts/e2e_venv.sh).
#
#   scripts/e2e_proxy.sh        (E2E_VENV=DIR reuses/keeps a virtual environment there)
#
# Everything binds 127.0.0.1 on free ports and is stopped on exit. Exits non-zero on any
# failure.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/toolsift-e2e.XXXXXX")
PIDS=()

cleanup() {
    local pid
    for pid in "${PIDS[@]+"${PIDS[@]}"}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]+"${PIDS[@]}"}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "e2e_proxy: FAILED: $*" >&2
    exit 1
}

for tool in cargo python3 curl; do
    command -v "$tool" >/dev/null || fail "$tool is not installed"
done

# The release build: .ci/run has just made it, so this is a no-op there.
echo "e2e_proxy: building toolsift (release)"
(cd "$ROOT" && cargo build --release --quiet --bin toolsift) || fail "cargo build"
TARGET_DIR=$(cd "$ROOT" && cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
BIN="$TARGET_DIR/release/toolsift"
[ -x "$BIN" ] || fail "no binary at $BIN"

# Start "$@" in the background, logging to $WORK/$name.log, and wait (bounded) for its
# "listening on http://ADDR/v1" line; sets URL.
start() {
    local name=$1
    shift
    "$@" 2>"$WORK/$name.log" &
    PIDS+=($!)
    local i
    for i in $(seq 1 100); do
        URL=$(grep -m1 -o 'listening on http://[0-9.:]*/v1' "$WORK/$name.log" 2>/dev/null | sed 's/^listening on //') || true
        [ -n "$URL" ] && return 0
        kill -0 "${PIDS[-1]}" 2>/dev/null || { cat "$WORK/$name.log" >&2; fail "$name exited"; }
        sleep 0.1
    done
    cat "$WORK/$name.log" >&2
    fail "$name did not start listening"
}

start upstream "$BIN" replay-upstream --listen 127.0.0.1:0 --dir "$ROOT/cli/tests/fixtures/e2e" --piece-bytes 3
UPSTREAM=$URL
start proxy "$BIN" proxy --listen 127.0.0.1:0 --upstream "$UPSTREAM" --dialect model
PROXY=$URL
PROXY_PID=${PIDS[-1]}
echo "e2e_proxy: upstream $UPSTREAM, proxy $PROXY"

VENV=${E2E_VENV:-$WORK/venv}
"$ROOT/scripts/e2e_venv.sh" "$VENV" || fail "no virtual environment with the pinned clients"

status=0
echo "e2e_proxy: openai client"
"$VENV/bin/python" "$ROOT/scripts/e2e_client.py" "$PROXY" || status=1

echo "e2e_proxy: curl -N"
for model in hermes-weather qwen3-coder-write-cut; do
    curl -sS -N --max-time 30 "$PROXY/chat/completions" \
        -H 'content-type: application/json' \
        -d "{\"model\": \"$model\", \"stream\": true, \"messages\": [{\"role\": \"user\", \"content\": \"go\"}]}" \
        -o "$WORK/$model.sse" || fail "curl $model"
    "$VENV/bin/python" "$ROOT/scripts/e2e_client.py" --check-sse "$WORK/$model.sse" || status=1
done

echo "e2e_proxy: SIGTERM to the proxy"
kill -TERM "$PROXY_PID"
for i in $(seq 1 100); do
    kill -0 "$PROXY_PID" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$PROXY_PID" 2>/dev/null && { echo "FAIL: the proxy did not stop on SIGTERM" >&2; status=1; }
grep -q 'shut down: requests=' "$WORK/proxy.log" ||
    { echo "FAIL: no summary on shutdown" >&2; status=1; }
echo "e2e_proxy: proxy log"
sed 's/^/  /' "$WORK/proxy.log"
grep -q 'model=hermes-weather stream=true dialect=hermes finish=tool_calls calls=2' "$WORK/proxy.log" ||
    { echo "FAIL: no per-request log line with model, dialect and calls" >&2; status=1; }
[ "$status" = 0 ] || fail "see the FAIL lines above"
echo "e2e_proxy: OK"

#!/usr/bin/env bash
# vLLM's and SGLang's own tool parsers against ours (scripts/server_parsers.py): the
# parser names both servers register, and the calls both read from the same outputs.
#
# Each server runs in the environment the Python package's checks use (.ci/run keeps
# them in the target directory): vLLM from python/requirements-ci.txt, SGLang from
# python/requirements-sglang.txt. Made by scripts/python_env.sh when missing or stale.
#
#     TOOLSIFT_BIN=PATH scripts/server_parsers.sh [--verbose] [--only NAME,...]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=${TOOLSIFT_BIN:-$TARGET/release/toolsift}
if [ ! -x "$BIN" ]; then
    (cd "$ROOT" && cargo build --release --quiet --bin toolsift)
fi
VLLM_VENV=${VLLM_VENV:-$TARGET/python-venv}
SGLANG_VENV=${SGLANG_VENV:-$TARGET/sglang-venv}
"$ROOT/scripts/python_env.sh" "$VLLM_VENV" "$ROOT/python/requirements-ci.txt"
"$ROOT/scripts/python_env.sh" "$SGLANG_VENV" "$ROOT/python/requirements-sglang.txt"
timeout 900 python3 "$ROOT/scripts/server_parsers.py" "$BIN" \
    --vllm "$VLLM_VENV/bin/python" --sglang "$SGLANG_VENV/bin/python" "$@"

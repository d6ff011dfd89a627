#!/usr/bin/env bash
# A virtual environment at DIR holding exactly the packages pinned in LOCK, kept between
# runs and rebuilt only when LOCK changes. Installed --no-deps (LOCK pins every package)
# and without pip's download cache: the environments are the cache, and vLLM's and
# SGLang's torch and CUDA wheels would double the disk they take.
#
#     scripts/python_env.sh DIR LOCK
set -euo pipefail
venv=$1 lock=$2
stamp=$(sha256sum "$lock" | cut -c1-16)
if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$stamp" ]; then
    echo "   installing $lock into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir --no-deps \
        -r "$lock"
    echo "$stamp" >"$venv/.requirements"
fi

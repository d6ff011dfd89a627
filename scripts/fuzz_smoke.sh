#!/usr/bin/env bash
# Run every fuzz target briefly (FUZZ_SECONDS each, 12 by default: about a minute in
# all) from a corpus seeded with the fixtures. Exits non-zero on a crash. Where the
# nightly toolchain is missing it fails under CI=true and skips, with a message, elsewhere;
# installs cargo-fuzz if needed.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-12}"
# `readings` (released means right over any text written into write_file) is run by
# hand (`cargo +nightly fuzz run readings`): after minutes of fuzzing it still finds
# rare cases (fuzz/README.md).
targets=(push chunking repair_vs_serde schema_prior sse)

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    if [ "${CI:-}" = true ]; then
        echo "fuzz smoke: FAILED: no nightly toolchain (rustup toolchain install nightly)" >&2
        exit 1
    fi
    echo "fuzz smoke: NOT RUN (no nightly toolchain; cargo-fuzz needs one)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz smoke: installing cargo-fuzz"
    cargo install --locked cargo-fuzz
fi

python3 fuzz/seed.py >/dev/null
cd fuzz
build_log="$(mktemp)"
if ! nice -n 15 cargo +nightly fuzz build >"$build_log" 2>&1; then
    cat "$build_log"
    echo "fuzz smoke: FAILED to build the targets"
    exit 1
fi
rm -f "$build_log"
failed=0
for t in "${targets[@]}"; do
    log="$(mktemp)"
    # A private copy of the corpus: the smoke run does not grow the seeded one.
    work="$(mktemp -d)"
    cp -r "corpus/$t/." "$work/"
    if nice -n 15 cargo +nightly fuzz run "$t" "$work" -- \
        -seed=1 -max_total_time="$seconds" -timeout=10 -dict=dict/markers.dict >"$log" 2>&1; then
        stats="$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE '#[0-9]+|cov: [0-9]+|ft: [0-9]+' | tr '\n' ' ')"
        echo "fuzz smoke: $t ok ($stats)"
    else
        echo "fuzz smoke: $t FAILED"
        grep -E "panicked|ERROR|SUMMARY|Test unit written" "$log" | head -20 || true
        failed=1
    fi
    rm -rf "$work" "$log"
done
exit "$failed"

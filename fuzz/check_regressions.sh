#!/usr/bin/env bash
# Runs every input under fuzz/regressions/<target>/ once and lists which still
# fail. Exit status 0 when none fails. Run from the repository root:
#
#     fuzz/check_regressions.sh            # every target with a folder there
#     fuzz/check_regressions.sh payload_against_flight
#
# Builds with `cargo +nightly fuzz build` first. SDSI_FUZZ_TOLERATE is cleared:
# a regression must fail on its own until the library is fixed.
set -u
cd "$(dirname "$0")/.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for dir in fuzz/regressions/*/; do targets+=("$(basename "$dir")"); done
fi
failed=0
for target in "${targets[@]}"; do
    cargo +nightly fuzz build "$target" >/dev/null || exit 2
    bin="fuzz/target/x86_64-unknown-linux-gnu/release/$target"
    for input in fuzz/regressions/"$target"/*; do
        [ -f "$input" ] || continue
        if out=$(env -u SDSI_FUZZ_TOLERATE "$bin" "$input" 2>&1); then
            echo "pass  $input"
        else
            failed=$((failed + 1))
            echo "FAIL  $input"
            echo "$out" | grep -m1 -A1 'panicked' | tail -1 | cut -c1-200 | sed 's/^/      /'
        fi
    done
done
echo "$failed failing"
[ "$failed" -eq 0 ]

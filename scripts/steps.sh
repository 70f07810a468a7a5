# Step timing for scripts/test.sh and .ci/run (sourced, not run).
#
#   step "clippy, all features" cargo clippy --workspace ...
#
# prints "== NAME" before the command and "-- NAME: N s" after it, and, when
# SDSI_STEP_TIMES names a file, appends "seconds<TAB>name" to it so that the
# script that owns the file can print one table for a whole run, including
# the steps of the scripts it calls. A failing command ends the caller as
# before (set -e); its time is not recorded.

step() {
    local name="$1"
    shift
    echo "== $name"
    local start="$EPOCHREALTIME"
    "$@"
    step_record "$name" "$start"
}

# step_record NAME START: records a step that began at START (an
# EPOCHREALTIME value) and ends now; for steps that are not one command.
step_record() {
    local seconds
    seconds="$(awk -v a="$2" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')"
    echo "-- $1: $seconds s"
    if [ -n "${SDSI_STEP_TIMES:-}" ]; then
        printf '%s\t%s\n' "$seconds" "$1" >>"$SDSI_STEP_TIMES"
    fi
}

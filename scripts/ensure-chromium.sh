#!/usr/bin/env bash
# Prints the path of a headless-capable Chromium, installing Debian's
# `chromium` package first when none is found (as scripts/with-postgres.sh
# does for PostgreSQL). The report's browser test (cli/tests/it/report.rs)
# renders the HTML report with it.
#
#   SDSI_CHROMIUM="$(scripts/ensure-chromium.sh)"
set -euo pipefail

# One install at a time (scripts/test.sh starts one in the background).
cache="${SDSI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sdsi}"
mkdir -p "$cache"
exec 9>"$cache/ensure-chromium.lock"
flock 9

if ! command -v chromium >/dev/null 2>&1; then
    echo "ensure-chromium: installing Debian's chromium package" >&2
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
command -v chromium

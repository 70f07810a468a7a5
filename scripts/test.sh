#!/usr/bin/env bash
# Every test of the workspace, with a throwaway PostgreSQL server for the
# replica tests (scripts/with-postgres.sh; it installs Debian's package if
# PostgreSQL is missing). The README's test command; CI runs it too.
set -euo pipefail
cd "$(dirname "$0")/.."
export SDSI_REQUIRE_POSTGRES=1
exec scripts/with-postgres.sh cargo test --workspace "$@"

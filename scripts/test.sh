#!/usr/bin/env bash
# Every test: the library alone without default features (the model and
# the validator), then the whole workspace with a throwaway PostgreSQL
# server for the replica tests (scripts/with-postgres.sh; it installs
# Debian's package if PostgreSQL is missing). The README's test command;
# .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== library without default features (model + validator)"
cargo test -p sdsi --no-default-features
echo "== workspace, default features (all of them), with PostgreSQL"
export SDSI_REQUIRE_POSTGRES=1
exec scripts/with-postgres.sh cargo test --workspace

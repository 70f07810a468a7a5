#!/usr/bin/env bash
# Fetches the slow test components once, into the cache: llama.cpp's server
# and its model, all-MiniLM-L6-v2, Chromium. .ci/run and scripts/test.sh
# start it in the background; each fetch script holds a lock while it works.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/fetch-llm.sh
scripts/fetch-model.sh
scripts/ensure-chromium.sh

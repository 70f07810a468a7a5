#!/usr/bin/env bash
# Runs a command with llama.cpp's OpenAI-compatible server serving
# SmolLM2-135M-Instruct on 127.0.0.1 (scripts/fetch-llm.sh installs both
# once), exports SDSI_LLM_URL (the API base, .../v1) and SDSI_LLM_MODEL for
# the command, and stops the server afterwards.
#
#   scripts/with-llm.sh cargo test -p sdsi-llm
set -euo pipefail
cd "$(dirname "$0")/.."
{ read -r python; read -r gguf; } < <(scripts/fetch-llm.sh)
port=$((20000 + RANDOM % 20000))
log="$(mktemp /tmp/sdsi-llm.XXXXXX.log)"
"$python" -m llama_cpp.server --model "$gguf" --model_alias smollm2 \
    --host 127.0.0.1 --port "$port" --n_ctx 2048 --n_threads 2 >"$log" 2>&1 &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -f "$log"
}
trap cleanup EXIT
for _ in $(seq 1 120); do
    if "$python" -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1], timeout=2)" \
        "http://127.0.0.1:$port/v1/models" 2>/dev/null; then
        break
    fi
    if ! kill -0 "$server" 2>/dev/null; then
        echo "with-llm: the server stopped:" >&2
        cat "$log" >&2
        exit 1
    fi
    sleep 1
done
# One completion before the command: a server that cannot run the model
# (an instruction the CPU refuses) fails here, with its log, not in a test.
if ! "$python" - "http://127.0.0.1:$port/v1/chat/completions" <<'PY'
import json, sys, urllib.request
body = json.dumps({"model": "smollm2", "max_tokens": 4,
                   "messages": [{"role": "user", "content": "Say hi."}]}).encode()
request = urllib.request.Request(sys.argv[1], body, {"content-type": "application/json"})
json.load(urllib.request.urlopen(request, timeout=120))
PY
then
    echo "with-llm: the server could not answer a completion:" >&2
    cat "$log" >&2
    exit 1
fi
export SDSI_LLM_URL="http://127.0.0.1:$port/v1" SDSI_LLM_MODEL=smollm2
"$@"

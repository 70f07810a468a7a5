#!/usr/bin/env bash
# The Python package's tests: builds the package with pip (maturin is its
# PEP 517 backend, fetched from PyPI into pip's isolated build environment),
# installs it into a virtual environment outside git (target/python-venv, or
# $SDSI_PYTHON_VENV), and runs its pytest suite. Needs Rust, Python >= 3.9
# and pip; everything else comes from PyPI. Called by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${SDSI_PYTHON_VENV:-target/python-venv}"
python="${PYTHON:-python3}"
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
"$venv/bin/python" -m pip install --quiet "pytest>=8"
# A fresh build each time: pip would otherwise keep an installed 0.1.0.
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps ./python
set +e
"$venv/bin/python" -m pytest python/tests -q -p no:cacheprovider
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: the Python suite is missing" >&2
    exit 1
fi
exit "$status"

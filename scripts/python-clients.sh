#!/usr/bin/env bash
# Creates .venv-clients/ with the pinned readers of Tests/Clients/requirements.txt (pandas, DuckDB and
# DuckDB's SQLite scanner), from PyPI. Does nothing when the environment already matches the file.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-clients
req=Tests/Clients/requirements.txt
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -c1-64)
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
echo "python-clients: installing the pinned test clients into $venv"
python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req"
echo "$want" > "$stamp"

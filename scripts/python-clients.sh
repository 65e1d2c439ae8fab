#!/usr/bin/env bash
# Creates the virtual environments of the pinned readers the tests load healthport's outputs
# with, from PyPI:
#   .venv-clients/          Tests/Clients/requirements.txt: pandas 2.2, DuckDB and its SQLite
#                           scanner, pyarrow, polars, geojson
#   .venv-clients-pandas3/  Tests/Clients/requirements-pandas3.txt: pandas 3.1, for the CSV tests
#                           that run under both pandas versions
# Each environment is stamped with its file's hash: one that already matches is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
install() {
  local venv=$1 req=$2
  local stamp="$venv/.requirements.sha256"
  local want
  want=$(sha256sum "$req" | cut -c1-64)
  if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  echo "python-clients: installing the pinned test clients of $req into $venv"
  python3 -m venv --clear "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$req"
  echo "$want" > "$stamp"
}
install .venv-clients Tests/Clients/requirements.txt
install .venv-clients-pandas3 Tests/Clients/requirements-pandas3.txt

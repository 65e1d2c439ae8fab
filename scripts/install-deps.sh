#!/usr/bin/env bash
# Installs the Debian packages healthport builds and tests with, when they are missing.
# Safe to run again: it does nothing when everything is there.
set -euo pipefail
packages=(libxml2-dev libxml2-utils libarchive-dev libsqlite3-dev libzstd-dev libsnappy-dev libpq-dev pkg-config time python3 python3-venv chromium
  groff-base zsh fish  # the tests render the man page and run the completions in these
  postgresql-15 postgresql-15-postgis-3)  # the tests start a throwaway server of these
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

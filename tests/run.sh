#!/usr/bin/env bash
# Install everything the tests need (Debian's Chromium, CJK/emoji fonts and nginx when run as root,
# then the pinned Python packages), lint with ruff, and run the whole suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
for pkg in chromium fonts-wqy-zenhei fonts-noto-color-emoji nginx; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "note: ${missing[*]} not installed (needs root); browser tests will be skipped" >&2
  fi
fi

python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
python -m ruff check .
python -m ruff format --check .
python -m pytest "$@"

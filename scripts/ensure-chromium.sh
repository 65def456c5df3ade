#!/usr/bin/env bash
# Find Chromium the way webdojo does ($WEBDOJO_CHROMIUM, /usr/bin/chromium, Playwright's own
# browser); if none is found, install Debian's chromium when we are root with apt, otherwise
# print the exact command to run.
set -euo pipefail
python="${1:-python3}"
find_chromium() {
  "$python" -c 'from webdojo.browser.chromium import find_chromium; print(find_chromium())'
}
if path=$(find_chromium 2>/dev/null); then
  exit 0
fi
if [ -n "${WEBDOJO_CHROMIUM:-}" ]; then
  find_chromium  # a wrong override is the user's to fix: show the typed error, install nothing
  exit 1
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Chromium not found: installing Debian's chromium with apt-get..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
elif ! "$python" -m playwright install chromium; then
  cat >&2 <<'MSG'
Chromium was not found and could not be installed automatically. Run one of:
  sudo apt-get install -y chromium                  # Debian/Ubuntu; webdojo uses /usr/bin/chromium
  .venv/bin/python -m playwright install chromium   # where the network allows it
or point WEBDOJO_CHROMIUM at a Chromium/Chrome binary.
MSG
  exit 1
fi
path=$(find_chromium) || exit 1
echo "Chromium: $path"

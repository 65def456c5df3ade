#!/usr/bin/env bash
# Find Chromium the way webdojo does ($WEBDOJO_CHROMIUM, Debian's chromium-headless-shell,
# /usr/bin/chromium, Playwright's own browsers); if none is found, install Debian's chromium and
# chromium-headless-shell when we are root with apt, otherwise print the exact command to run.
# Where only the full browser is found, add the headless shell if apt can (best effort): it
# costs well under half the CPU per episode.
set -euo pipefail
python="${1:-python3}"
find_chromium() {
  "$python" -c 'from webdojo.browser.chromium import find_chromium; print(find_chromium())'
}
can_apt() {
  [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1
}
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "$@" >/dev/null
}
if path=$(find_chromium 2>/dev/null); then
  case "$path" in
    *headless*) exit 0 ;;
  esac
  if [ -z "${WEBDOJO_CHROMIUM:-}" ] && can_apt; then
    echo "Found $path; adding Debian's chromium-headless-shell (cheaper per episode)..."
    apt_install chromium-headless-shell || echo "could not install it; webdojo uses $path" >&2
  fi
  exit 0
fi
if [ -n "${WEBDOJO_CHROMIUM:-}" ]; then
  find_chromium  # a wrong override is the user's to fix: show the typed error, install nothing
  exit 1
fi
if can_apt; then
  echo "Chromium not found: installing Debian's chromium and chromium-headless-shell with apt-get..."
  apt_install chromium chromium-headless-shell fonts-dejavu-core
elif ! "$python" -m playwright install chromium; then
  cat >&2 <<'MSG'
Chromium was not found and could not be installed automatically. Run one of:
  sudo apt-get install -y chromium chromium-headless-shell   # Debian/Ubuntu
  .venv/bin/python -m playwright install chromium            # where the network allows it
or point WEBDOJO_CHROMIUM at a Chromium/Chrome binary.
MSG
  exit 1
fi
path=$(find_chromium) || exit 1
echo "Chromium: $path"

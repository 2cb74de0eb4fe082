#!/usr/bin/env bash
# The web console in a real browser (issue 14): Debian's chromium and chromium-driver, Selenium in a venv, headless,
# on loopback. Usage: scripts/console-browser-test.sh [path/to/healthbridge] [screenshot directory]
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-$(swift build --show-bin-path)/healthbridge}"
shots="${2:-console-screenshots}"
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
fi
venv=.venv-console
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check selenium
HEALTHBRIDGE_LOG_LEVEL=warning "$venv/bin/python" scripts/console_browser_test.py "$binary" "$shots"

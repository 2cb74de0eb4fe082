#!/usr/bin/env bash
# The web console in a real browser (issue 14): Debian's chromium and chromium-driver, Selenium in a venv, headless,
# on loopback. Usage: IntegrationTests/console-browser-test.sh [path/to/healthbridge] [screenshot directory]
. "$(dirname "$0")/../scripts/lib.sh"

binary="${1:-$(hb_binary)}"
shots="${2:-console-screenshots}"
hb_apt chromium chromium-driver curl
hb_venv .venv-console selenium
HEALTHBRIDGE_LOG_LEVEL=warning "$venv/bin/python" IntegrationTests/console_browser_test.py "$binary" "$shots"

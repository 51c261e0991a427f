#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed: the HTML report's test opens the report in it,
# headless, through playwright-core (which never downloads a browser of its own). Safe to run any
# number of times.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  printf 'browser: chromium is installed\n' >&2
  exit 0
fi
printf 'browser: installing chromium\n' >&2
if [ -z "${HEADROOM_APT_UPDATED:-}" ]; then apt-get update -qq; fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null

#!/bin/sh
# What Puppeteer launches for a Firefox peer: Firefox under `setpriv --pdeathsig KILL`, so the kernel kills it when
# the orchestrator dies, SIGKILL included (Chromium gets the same from its pipe; Firefox's WebDriver BiDi has no
# pipe, only a WebSocket). Firefox's own child processes exit when their parent's IPC channel closes.
#   WTB_BROWSER=/usr/bin/firefox-esr firefox-exec.sh --headless ...
set -eu
: "${WTB_BROWSER:?set WTB_BROWSER to the Firefox executable, e.g. /usr/bin/firefox-esr}"
exec setpriv --pdeathsig KILL -- "$WTB_BROWSER" "$@"

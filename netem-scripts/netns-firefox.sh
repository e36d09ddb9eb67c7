#!/bin/sh
# Runs Firefox inside a peer's network namespace, under `setpriv --pdeathsig KILL` (the kernel kills it when the
# orchestrator dies, SIGKILL included: WebDriver BiDi has no pipe to close). The netem emulator's launchSpec points
# Puppeteer here with --remote-debugging-port=<port>; its forwarder carries that port from the root namespace's
# 127.0.0.1 to the namespace's (orchestrator/emulators/netem/bidi-forward.js).
#   WTB_NETNS=wtb-<id>-p1 WTB_BROWSER=/usr/bin/firefox-esr netns-firefox.sh --remote-debugging-port=40123 ...
set -eu
: "${WTB_NETNS:?set WTB_NETNS to the peer namespace, e.g. wtb-<id>-p1 (see \`ip netns list\`)}"
: "${WTB_BROWSER:?set WTB_BROWSER to the Firefox executable, e.g. /usr/bin/firefox-esr}"
exec ip netns exec "$WTB_NETNS" setpriv --pdeathsig KILL -- "$WTB_BROWSER" "$@"

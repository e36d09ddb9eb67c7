#!/bin/sh
# Runs a command (the peer's browser) inside a network namespace. The netem emulator's launchSpec points
# puppeteer here (with pipe: true, so DevTools needs no TCP port across namespaces):
#   WTB_NETNS=wtb-<id>-p0 WTB_BROWSER=/usr/bin/chromium netns-exec.sh --headless=new ...
set -eu
: "${WTB_NETNS:?set WTB_NETNS to the peer namespace, e.g. wtb-<id>-p0 (see \`ip netns list\`)}"
: "${WTB_BROWSER:?set WTB_BROWSER to the browser executable, e.g. /usr/bin/chromium}"
exec ip netns exec "$WTB_NETNS" "$WTB_BROWSER" "$@"

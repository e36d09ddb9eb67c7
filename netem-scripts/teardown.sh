#!/bin/sh
# Removes a netem topology built by setup-namespaces.sh or left by a crashed run: its nft table, the root end
# of its control veth and its namespaces (which takes their veths, ifbs and qdiscs along). Processes still
# running inside those namespaces are killed. `webrtc-testbed cleanup` does the same from the CLI.
#
# Usage (root): teardown.sh ID     one run (namespaces wtb-ID-*)
#               teardown.sh --all  every wtb-* namespace and wtb*c link
set -u
ID=${1:?usage: teardown.sh ID | --all}
if [ "$ID" = --all ]; then NS_PATTERN='^wtb-'; LINK_PATTERN='^wtb[a-z0-9]{1,8}c$'
else NS_PATTERN="^wtb-$ID-"; LINK_PATTERN="^wtb${ID}c\$"
fi
for ns in $(ip netns list | awk '{print $1}' | grep -E "$NS_PATTERN"); do
  for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  for table in $(ip netns exec "$ns" nft list tables 2>/dev/null | awk '/^table inet wtb_/ {print $3}'); do
    ip netns exec "$ns" nft delete table inet "$table"
  done
done
for link in $(ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | grep -E "$LINK_PATTERN"); do
  ip link del dev "$link"
done
for ns in $(ip netns list | awk '{print $1}' | grep -E "$NS_PATTERN"); do
  ip netns del "$ns"
done
echo "removed: ${ID}"

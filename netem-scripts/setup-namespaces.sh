#!/bin/sh
# Builds the netem backend's topology by hand, with every link unconstrained. The commands are not kept here:
# `webrtc-testbed export-script --topology-only` generates them from the ones the emulator runs
# (orchestrator/emulators/netem/commands.js), and this script runs what it prints.
# Shape a link afterwards with `tc … change` (see README.md) or export a whole scenario with
# `webrtc-testbed export-script <scenario>`. Remove it with teardown.sh ID.
#
# Usage (root): setup-namespaces.sh ID [PEERS=2] [BLOCK=200]
#   ID     1-8 characters [a-z0-9]: namespaces wtb-ID-p0 … and router wtb-ID-r
#   BLOCK  addresses come from 10.201.BLOCK.0/24 (peers p0 .130, p1 .194, p2 .134, …; root end of the control veth .1)
# Environment: NETEM=1|0|auto (sch_netem present; 0 puts loss on nftables), BOTTLENECK=1 adds the shared
#   bottleneck (bottleneck.fwd and bottleneck.back), DRY_RUN=1 prints the generated script instead of running it, NODE=… the node binary.
set -eu
ID=${1:?usage: setup-namespaces.sh ID [PEERS=2] [BLOCK=200]}
PEERS=${2:-2}
BLOCK=${3:-200}
NETEM=${NETEM:-auto}
CLI="$(dirname "$0")/../orchestrator/bin/cli.js"

if [ "$NETEM" = auto ]; then
  if [ "${DRY_RUN:-0}" = 1 ]; then NETEM=1
  else
    probe=wtb-$ID-probe
    ip netns add "$probe"
    if tc -n "$probe" qdisc add dev lo root netem delay 1ms 2>/dev/null; then NETEM=1
    else echo "sch_netem missing: loss goes to nftables, delay/jitter are unavailable (modprobe sch_netem)" >&2; NETEM=0
    fi
    ip netns del "$probe"
  fi
fi
case $NETEM in
  1) set -- ;;
  0) set -- --no-sch-netem ;;
  *) echo "NETEM must be 1, 0 or auto, got '$NETEM'" >&2; exit 2 ;;
esac
[ "${BOTTLENECK:-0}" = 1 ] && set -- "$@" --bottleneck

script=$("${NODE:-node}" "$CLI" export-script --topology-only --run-id "$ID" --peers "$PEERS" --block "$BLOCK" "$@")
if [ "${DRY_RUN:-0}" = 1 ]; then
  printf '%s\n' "$script"
else
  printf '%s\n' "$script" | sh
fi

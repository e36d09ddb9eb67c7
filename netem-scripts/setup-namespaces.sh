#!/bin/sh
# Builds the netem backend's topology by hand, with every link unconstrained; the same commands the
# emulator runs (orchestrator/emulators/netem/commands.js, checked by test/unit/netem-commands.test.js).
# Shape a link afterwards with `tc … change` (see README.md) or export a whole scenario with
# `webrtc-testbed export-script <scenario>`. Remove it with teardown.sh ID.
#
# Usage (root): setup-namespaces.sh ID [PEERS=2] [BLOCK=200]
#   ID     1-8 characters [a-z0-9]: namespaces wtb-ID-p0 … and router wtb-ID-r
#   BLOCK  addresses come from 10.201.BLOCK.0/24 (peers .130, .134, …; root end of the control veth .1)
# Environment: NETEM=1|0|auto (sch_netem present; 0 puts loss on nftables), BOTTLENECK=1 adds the shared
#   bottleneck stage, DRY_RUN=1 prints the commands instead of running them.
set -eu
ID=${1:?usage: setup-namespaces.sh ID [PEERS=2] [BLOCK=200]}
PEERS=${2:-2}
BLOCK=${3:-200}
NETEM=${NETEM:-auto}
BOTTLENECK=${BOTTLENECK:-0}
case $ID in *[!a-z0-9]*|'') echo "ID must be 1-8 characters of [a-z0-9], got '$ID'" >&2; exit 2 ;; esac
[ ${#ID} -le 8 ] || { echo "ID must be at most 8 characters (interface names are limited to 15)" >&2; exit 2; }

NET=10.201.$BLOCK
R=wtb-$ID-r
T=wtb_$ID
CTL=wtb${ID}c
RANGE=$NET.128/25
LOOP_IN_MAC=02:77:74:62:00:02

# Prints an argument quoted for the shell when it needs it (matches the emulator's command log).
q() {
  case $1 in
    *[!A-Za-z0-9_.,:/@%+=-]*|'') printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")" ;;
    *) printf %s "$1" ;;
  esac
}
run() {
  if [ "${DRY_RUN:-0}" = 1 ]; then
    sep=''
    for arg in "$@"; do printf %s "$sep"; q "$arg"; sep=' '; done
    printf '\n'
  else
    "$@"
  fi
}

run ip netns add "$R"
run ip -n "$R" link set dev lo up
# rp_filter would drop the second pass through the loop (its source, a peer, is not routed via hp1).
run ip netns exec "$R" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
if [ "$NETEM" = auto ]; then
  if [ "${DRY_RUN:-0}" = 1 ]; then NETEM=1
  elif tc -n "$R" qdisc add dev lo root netem delay 1ms 2>/dev/null; then tc -n "$R" qdisc del dev lo root; NETEM=1
  else echo "sch_netem missing: loss goes to nftables, delay/jitter are unavailable (modprobe sch_netem)" >&2; NETEM=0
  fi
fi

i=0
while [ $i -lt "$PEERS" ]; do
  P=wtb-$ID-p$i
  run ip netns add "$P"
  run ip -n "$P" link set dev lo up
  run ip link add name eth0 netns "$P" type veth peer name "p$i" netns "$R"
  run ip -n "$P" addr add "$NET.$((130 + 4 * i))/30" dev eth0
  run ip -n "$R" addr add "$NET.$((129 + 4 * i))/30" dev "p$i"
  run ip netns exec "$P" ethtool -K eth0 tso off gso off gro off
  run ip netns exec "$R" ethtool -K "p$i" tso off gso off gro off
  run ip -n "$P" link set dev eth0 up
  run ip -n "$R" link set dev "p$i" up
  run ip -n "$P" route add default via "$NET.$((129 + 4 * i))"
  i=$((i + 1))
done

# Signaling path: root namespace <-> router, unshaped.
run ip link add name "$CTL" type veth peer name ctl netns "$R"
run ip addr add "$NET.1/30" dev "$CTL"
run ip -n "$R" addr add "$NET.2/30" dev ctl
run ethtool -K "$CTL" tso off gso off gro off
run ip netns exec "$R" ethtool -K ctl tso off gso off gro off
run ip link set dev "$CTL" up
run ip -n "$R" link set dev ctl up
run ip route add "$RANGE" via "$NET.2" dev "$CTL"

# The router's loop: peer-to-peer packets go out hp0 and come back in on hp1, so each is forwarded twice and
# every shaping stage sits after forwarding (the sender's socket is no longer charged for queued packets).
run ip -n "$R" link add name hp0 address 02:77:74:62:00:01 type veth peer name hp1 address "$LOOP_IN_MAC"
run ip netns exec "$R" ethtool -K hp0 tso off gso off gro off
run ip netns exec "$R" ethtool -K hp1 tso off gso off gro off
run ip -n "$R" link set dev hp0 up
run ip -n "$R" link set dev hp1 up
run ip -n "$R" route add "$RANGE" dev hp0 table 100
i=0
while [ $i -lt "$PEERS" ]; do
  run ip -n "$R" neigh replace "$NET.$((130 + 4 * i))" lladdr "$LOOP_IN_MAC" dev hp0 nud permanent
  run ip -n "$R" rule add iif "p$i" to "$RANGE" lookup 100 priority 100
  i=$((i + 1))
done

if [ "$BOTTLENECK" = 1 ]; then
  run ip -n "$R" link add name ifb-bn type ifb
  run ip -n "$R" link set dev ifb-bn up
fi
# Root htb on every shaping device; unclassified packets (signaling, ARP) pass unshaped.
DEVICES=hp0
i=0; while [ $i -lt "$PEERS" ]; do DEVICES="$DEVICES p$i"; i=$((i + 1)); done
[ "$BOTTLENECK" = 1 ] && DEVICES="$DEVICES ifb-bn"
for dev in $DEVICES; do
  run tc -n "$R" qdisc add dev "$dev" root handle 1: stab overhead -14 htb default 0
done
# Bottleneck: peer-to-peer packets leaving any pj detour through ifb-bn.
if [ "$BOTTLENECK" = 1 ]; then
  i=0
  while [ $i -lt "$PEERS" ]; do
    run tc -n "$R" qdisc add dev "p$i" clsact
    run tc -n "$R" filter add dev "p$i" egress protocol ip prio 1 u32 match ip src "$RANGE" match ip dst "$RANGE" action mirred egress redirect dev ifb-bn
    i=$((i + 1))
  done
fi

# One stage per link, in the emulator's order: p0.up, p0.down, p1.up, …, bottleneck.
STAGES=''
i=0
while [ $i -lt "$PEERS" ]; do STAGES="$STAGES p$i.up p$i.down"; i=$((i + 1)); done
[ "$BOTTLENECK" = 1 ] && STAGES="$STAGES bottleneck"
if [ "$NETEM" = 0 ]; then
  run ip netns exec "$R" nft add table inet "$T"
  run ip netns exec "$R" nft add chain inet "$T" forward '{' type filter hook forward priority 0 ';' policy accept ';' '}'
fi
n=0
for link in $STAGES; do
  n=$((n + 1))
  chain=$(printf %s "$link" | tr . _)
  peer=${link%.*}
  # nft: uplink loss on the first pass (from the peer's port), the others on the second (from hp1).
  case $link in
    *.up) addr=$NET.$((130 + 4 * ${peer#p})); dev=hp0; src=$addr/32; dst=$RANGE; nftmatch="iifname $peer ip daddr $RANGE" ;;
    *.down) addr=$NET.$((130 + 4 * ${peer#p})); dev=$peer; src=$RANGE; dst=$addr/32; nftmatch="iifname hp1 oifname $peer" ;;
    *) dev=ifb-bn; src=$RANGE; dst=$RANGE; nftmatch="iifname hp1" ;;
  esac
  if [ "$NETEM" = 0 ]; then
    run ip netns exec "$R" nft add counter inet "$T" "$chain"
    run ip netns exec "$R" nft add chain inet "$T" "$chain"
    # nftmatch is a list of words
    # shellcheck disable=SC2086
    run ip netns exec "$R" nft add rule inet "$T" forward $nftmatch jump "$chain"
  fi
  eval "STAGE_$n='$dev $chain $src $dst'"
done
n=0
for link in $STAGES; do
  n=$((n + 1))
  eval "set -- \$STAGE_$n"
  dev=$1; chain=$2; src=$3; dst=$4
  class=1:$(printf %x $n)
  netem=$(printf %x $((256 + n))):
  fifo=$(printf %x $((512 + n))):
  run tc -n "$R" class add dev "$dev" parent 1: classid "$class" htb rate 10000000000bit ceil 10000000000bit burst 1250000 cburst 1250000 quantum 1600
  if [ "$NETEM" = 1 ]; then
    run tc -n "$R" qdisc add dev "$dev" parent "$class" handle "$netem" netem limit 100000 delay 0ms 0ms rate 1gbit loss random 0%
    run tc -n "$R" qdisc add dev "$dev" parent "${netem}1" handle "$fifo" bfifo limit 4000000
  else
    run tc -n "$R" qdisc add dev "$dev" parent "$class" handle "$fifo" bfifo limit 4000000
    run ip netns exec "$R" nft flush chain inet "$T" "$chain" ';' add rule inet "$T" "$chain" numgen random mod 10000 '<' 0 counter name "$chain" drop
  fi
  run tc -n "$R" filter add dev "$dev" parent 1: protocol ip prio 1 u32 match ip src "$src" match ip dst "$dst" flowid "$class"
done
[ "${DRY_RUN:-0}" = 1 ] || echo "ready: peers in wtb-$ID-p0…p$((PEERS - 1)) at $NET.130, $NET.134, …; signaling reachable at $NET.1"

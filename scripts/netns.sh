#!/usr/bin/env bash
# Test hosts on this machine: each a network namespace with an address of its own on one
# bridge, so that a RabbitMQ node, a PostgreSQL server or a stage can be cut off from the
# others (the cluster tests and `iap-lab chaos --cluster`).
#
#   scripts/netns.sh up NAME ADDRESS   # namespace iap-NAME at ADDRESS/24 on bridge iap-br0
#   scripts/netns.sh cut NAME          # its link down: nothing reaches it, it reaches nothing
#   scripts/netns.sh heal NAME         # its link up again
#   scripts/netns.sh down NAME         # the namespace gone (its processes must be stopped first)
#   scripts/netns.sh clean             # every iap-* namespace and the bridge gone
#
# The host itself is 10.77.0.1 on the bridge, so a namespace reaches the host's services
# (and the host the namespaces') by address. Needs root (ip from iproute2).
set -euo pipefail
bridge=iap-br0
host_address=10.77.0.1

ensure_bridge() {
  if ! ip link show "$bridge" >/dev/null 2>&1; then
    ip link add "$bridge" type bridge
    ip addr add "$host_address/24" dev "$bridge"
    ip link set "$bridge" up
  fi
}

# Interface names are at most 15 characters: vh-NAME on the host side, vn-NAME inside.
host_end() { echo "vh-${1:0:12}"; }

case "${1:-}" in
up)
  name=$2 address=$3
  ensure_bridge
  ns="iap-$name"
  ip netns list | grep -qw "$ns" && { echo "netns: $ns exists" >&2; exit 1; }
  ip netns add "$ns"
  ip link add "$(host_end "$name")" type veth peer name "vn-${name:0:12}"
  ip link set "vn-${name:0:12}" netns "$ns"
  ip link set "$(host_end "$name")" master "$bridge"
  ip link set "$(host_end "$name")" up
  ip netns exec "$ns" ip link set lo up
  ip netns exec "$ns" ip addr add "$address/24" dev "vn-${name:0:12}"
  ip netns exec "$ns" ip link set "vn-${name:0:12}" up
  ip netns exec "$ns" ip route add default via "$host_address"
  ;;
cut) ip link set "$(host_end "$2")" down ;;
heal) ip link set "$(host_end "$2")" up ;;
down)
  ip link del "$(host_end "$2")" 2>/dev/null || true
  ip netns del "iap-$2" 2>/dev/null || true
  ;;
clean)
  for ns in $(ip netns list | awk '{print $1}' | grep '^iap-' || true); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip link del "$(host_end "${ns#iap-}")" 2>/dev/null || true
    ip netns del "$ns"
  done
  ip link del "$bridge" 2>/dev/null || true
  ;;
*)
  echo "usage: scripts/netns.sh up NAME ADDRESS | cut NAME | heal NAME | down NAME | clean" >&2
  exit 64
  ;;
esac

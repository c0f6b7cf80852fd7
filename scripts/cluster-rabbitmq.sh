#!/usr/bin/env bash
# A three-node RabbitMQ cluster on this machine, each node a test host of its own (a network
# namespace, scripts/netns.sh): rabbit@iap-rmqN in namespace iap-rmqN at 10.77.0.1N, AMQP on
# 5672 there. For the cluster tests (BrokerTests' AloneBrokerClusterTests) and by hand:
#
#   scripts/cluster-rabbitmq.sh up            # three nodes, clustered; prints the IAP_AMQP_URL list
#   scripts/cluster-rabbitmq.sh urls          # that list again (guest:guest, heartbeat 2 s)
#   scripts/cluster-rabbitmq.sh kill N        # SIGKILL node N's Erlang VM (beam), nothing else
#   scripts/cluster-rabbitmq.sh start N       # start node N again (after kill or stop); waits until it runs
#   scripts/cluster-rabbitmq.sh stop-app N    # rabbitmqctl stop_app on node N (the VM stays up)
#   scripts/cluster-rabbitmq.sh start-app N   # rabbitmqctl start_app on node N
#   scripts/cluster-rabbitmq.sh cut N         # node N's link down: nothing reaches it, it reaches nothing
#   scripts/cluster-rabbitmq.sh heal N        # its link up again
#   scripts/cluster-rabbitmq.sh ctl N ARGS    # rabbitmqctl ARGS on node N (queues: ctl N list_queues ...)
#   scripts/cluster-rabbitmq.sh down [--keep] # every node, namespace and file gone; --keep keeps the logs
#
# Everything lives under IAP_RMQ_DIR (default /tmp/iap-rmq): per node its Mnesia and log
# directories and pid file, a configuration, and a HOME holding the cluster's own Erlang
# cookie (never /root/.erlang.cookie nor the shared broker's). Host names are not added to
# /etc/hosts: each namespace gets /etc/netns/iap-rmqN/hosts, which `ip netns exec` mounts
# over /etc/hosts for what runs inside it, so rabbitmqctl runs inside the node's namespace.
# `down` works whatever state a failed run left, and `up` calls it first; it also removes the
# bridge iap-br0 once no namespace is left on it. Never touches the machine's own broker
# (127.0.0.1:5672, its cookie, its epmd). Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

base=${IAP_RMQ_DIR:-/tmp/iap-rmq}
nodes=(1 2 3)
address() { echo "10.77.0.1$1"; }
node_name() { echo "rabbit@iap-rmq$1"; }
rabbit_bin=/usr/lib/rabbitmq/bin

usage() {
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 64
}

check_node() {
  case "${1:-}" in 1 | 2 | 3) ;; *) echo "cluster-rabbitmq: no node '${1:-}' (1, 2 or 3)" >&2 && exit 64 ;; esac
}

# Runs a command as on host N: in its network namespace, under its host name (a UTS
# namespace of its own). Erlang names a node after its host, and the other nodes answer a
# rabbitmqctl by that name: with the machine's name they would look for it at home.
on_host() {
  local n=$1
  shift
  ip netns exec "iap-rmq$n" unshare --uts sh -c 'hostname "$0" && exec "$@"' "iap-rmq$n" "$@"
}

# rabbitmqctl on node N, from its host, with the cluster's cookie.
ctl() {
  local n=$1
  shift
  on_host "$n" env HOME="$base/home" RABBITMQ_CONF_ENV_FILE="$base/env.conf" \
    "$rabbit_bin/rabbitmqctl" -n "$(node_name "$n")" -q "$@"
}

write_files() {
  mkdir -p "$base/home"
  # The cookie is the cluster's own: nodes and CLI read it from HOME.
  if [ ! -f "$base/home/.erlang.cookie" ]; then
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr 'a-f' 'A-F' >"$base/home/.erlang.cookie"
    chmod 400 "$base/home/.erlang.cookie"
  fi
  : >"$base/env.conf"
  echo '[].' >"$base/enabled_plugins"
  cat >"$base/rabbitmq.conf" <<'CONF'
# Clients connect from the host (10.77.0.1), not loopback.
loopback_users.guest = false
# A node cut off from the others pauses (closing its clients' connections) and resumes when
# it sees a majority again, instead of running on as a partition of its own.
cluster_partition_handling = pause_minority
# Three nodes on one small machine: keep the disk alarm out of the way of the tests.
disk_free_limit.absolute = 100MB
log.file.level = info
CONF
  for n in "${nodes[@]}"; do
    mkdir -p "$base/rmq$n/mnesia" "$base/rmq$n/log" "/etc/netns/iap-rmq$n"
    {
      echo "127.0.0.1 localhost"
      for m in "${nodes[@]}"; do echo "$(address "$m") iap-rmq$m"; done
    } >"/etc/netns/iap-rmq$n/hosts"
  done
}

# Starts node N in its namespace, detached from the caller (its own session, its output in
# its log directory), with a file limit raised for a broker's many connections and files.
start_node() {
  local n=$1
  rm -f "$base/rmq$n/pid"
  # Without descriptors inherited from the caller: Foundation's Process (the tests) learns
  # that its child ended when a socket it handed down closes, and a node that kept it would
  # make `up` seem to run for as long as the node does.
  (
    close_inherited_fds
    on_host "$n" setsid env -i PATH="/usr/sbin:/usr/bin:/sbin:/bin" LANG=C.UTF-8 \
      HOME="$base/home" RABBITMQ_NODENAME="$(node_name "$n")" RABBITMQ_NODE_IP_ADDRESS="$(address "$n")" \
      RABBITMQ_NODE_PORT=5672 RABBITMQ_DIST_PORT=25672 RABBITMQ_MNESIA_BASE="$base/rmq$n/mnesia" \
      RABBITMQ_LOG_BASE="$base/rmq$n/log" RABBITMQ_CONFIG_FILE="$base/rabbitmq.conf" \
      RABBITMQ_ENABLED_PLUGINS_FILE="$base/enabled_plugins" RABBITMQ_CONF_ENV_FILE="$base/env.conf" \
      RABBITMQ_ADVANCED_CONFIG_FILE="$base/advanced.config" RABBITMQ_PID_FILE="$base/rmq$n/pid" \
      bash -c 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec '"$rabbit_bin"'/rabbitmq-server'
  ) </dev/null >>"$base/rmq$n/log/console.log" 2>&1 &
}

# Closes this (sub)shell's descriptors but standard input, output and error.
close_inherited_fds() {
  local fd self=$BASHPID
  for fd in $(ls "/proc/$self/fd"); do
    if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
  done
}

# Waits until node N runs its app (await_startup fails at once before the node registers
# with its epmd, hence the loop).
await_node() {
  local n=$1
  for _ in $(seq 1 120); do
    if ctl "$n" await_startup --timeout 5 >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "cluster-rabbitmq: node $n did not start; see $base/rmq$n/log" >&2
  grep -h '\[error\]' "$base/rmq$n/log/"*.log 2>/dev/null | head -5 | cut -c1-240 >&2 || true
  return 1
}

beam_pid() {
  local pid
  pid=$(cat "$base/rmq$1/pid" 2>/dev/null) || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = beam.smp ] && echo "$pid"
}

urls() {
  local list=()
  for n in "${nodes[@]}"; do list+=("amqp://guest:guest@$(address "$n"):5672/?heartbeat=2"); done
  (IFS=,; echo "${list[*]}")
}

down() {
  for n in "${nodes[@]}"; do
    # Everything in the namespace: the beam, its epmd, a rabbitmqctl left hanging.
    if ip netns list | awk '{print $1}' | grep -qx "iap-rmq$n"; then
      ip netns pids "iap-rmq$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
    fi
    scripts/netns.sh down "rmq$n"
    rm -rf "/etc/netns/iap-rmq$n"
  done
  # The bridge is shared with other test hosts (scripts/netns.sh): only when it has no port left.
  if ip link show iap-br0 >/dev/null 2>&1 && [ -z "$(ip link show master iap-br0)" ]; then
    ip link del iap-br0 2>/dev/null || true
  fi
  if [ "${1:-}" != --keep ]; then rm -rf "$base"; fi
}

up() {
  down
  for n in "${nodes[@]}"; do scripts/netns.sh up "rmq$n" "$(address "$n")"; done
  write_files
  for n in "${nodes[@]}"; do start_node "$n"; done
  for n in "${nodes[@]}"; do await_node "$n"; done
  for n in 2 3; do
    ctl "$n" stop_app
    ctl "$n" reset
    # join_cluster logs harmless errors about tables of nodes not yet running: kept in a file.
    ctl "$n" join_cluster "$(node_name 1)" >>"$base/rmq$n/log/join.log" 2>&1 ||
      { cat "$base/rmq$n/log/join.log" >&2 && exit 1; }
    ctl "$n" start_app
  done
  # The pipeline's definitions, once all three are members, so that its quorum queues get
  # three replicas (a queue created on a lone node keeps one).
  ctl 1 import_definitions "$PWD/deploy/rabbitmq/definitions.json" >/dev/null
  local running
  running=$(ctl 1 cluster_status --formatter json | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["running_nodes"]))')
  [ "$running" = 3 ] || { echo "cluster-rabbitmq: $running nodes running, not 3" >&2 && exit 1; }
  urls
}

case "${1:-}" in
up) up ;;
urls) urls ;;
kill)
  check_node "${2:-}"
  pid=$(beam_pid "$2") || { echo "cluster-rabbitmq: node $2 is not running" >&2 && exit 1; }
  kill -KILL "$pid"
  ;;
start)
  check_node "${2:-}"
  beam_pid "$2" >/dev/null && { echo "cluster-rabbitmq: node $2 is running already" >&2 && exit 1; }
  start_node "$2"
  await_node "$2"
  ;;
stop-app) check_node "${2:-}" && ctl "$2" stop_app ;;
start-app) check_node "${2:-}" && ctl "$2" start_app && ctl "$2" await_startup --timeout 60 ;;
cut) check_node "${2:-}" && scripts/netns.sh cut "rmq$2" ;;
heal) check_node "${2:-}" && scripts/netns.sh heal "rmq$2" ;;
ctl) check_node "${2:-}" && n=$2 && shift 2 && ctl "$n" "$@" ;;
down) down "${2:-}" ;;
*) usage ;;
esac

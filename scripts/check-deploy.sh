#!/usr/bin/env bash
# Checks docker-compose.yml and deploy/ with the tools that will read them:
#   1. Debian's docker-compose parses the compose file (`docker-compose config`), with and
#      without its profile postgres, whose stages must run on PostgreSQL, replicated, after
#      migrate, on queues of their own; Debian's HAProxy checks the profile's load balancer;
#   2. kubernetes-validate (PyPI) checks every manifest in deploy/kubernetes, strictly, against
#      pinned Kubernetes versions, and jsonschema checks KEDA's kinds against deploy/kubernetes/schemas;
#      so is everything `kustomize build` renders of it and of deploy/kubernetes-postgres (kubectl's
#      kustomize, which the machine has), and that overlay must render no StatefulSet nor volume
#      claim, and intakes, fulfillers and notifiers in Deployments of 2+ on IAP_DATABASE_URL;
#   3. the installed RabbitMQ knows every rabbitmq.conf key and plugin, the compose file's AMQP
#      credentials are the ones definitions.json creates, and the running broker imports the
#      definitions into a throwaway vhost (deleted afterwards), and a throwaway node boots with
#      the three files as docker-compose mounts them;
#   4. systemd-analyze verifies the units, when it is installed;
# and every IAP_* setting the files name is one the code reads.
# That the definitions match the code's topology exactly is BrokerTests' DeployDefinitionsTests.
# Installs what it lacks (apt: docker-compose, haproxy, python3-venv; PyPI: kubernetes-validate)
# and needs RabbitMQ installed and running (scripts/setup.sh), curl, and kubectl or kustomize.
set -euo pipefail
cd "$(dirname "$0")/.."

kubernetes_versions=(1.33.0 1.37.0)
kubernetes_validate_version=1.37.0
venv=.build/deploy-venv
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

apt_install() {
  echo "check-deploy: installing $* from apt"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# 1. The compose file, with its defaults (not this shell's IAP_* settings) filled in.
command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose
env -u IAP_AMQP_URL docker-compose -f docker-compose.yml config -q
env -u IAP_AMQP_URL docker-compose -f docker-compose.yml config > "$work/compose.yml"
env -u IAP_AMQP_URL docker-compose -f docker-compose.yml --profile postgres config -q
echo "check-deploy: docker-compose.yml is valid, with and without --profile postgres ($(docker-compose version --short))"
# The profile's load balancer. Debian's package does not start its service where policy-rc.d
# forbids it (containers, CI); elsewhere it starts with Debian's configuration, which listens nowhere.
command -v haproxy >/dev/null 2>&1 || apt_install haproxy
if ! report=$(haproxy -c -f deploy/haproxy/haproxy.cfg 2>&1) || grep -q '\[\(WARNING\|ALERT\)\]' <<< "$report"; then
  echo "check-deploy: haproxy -c deploy/haproxy/haproxy.cfg: $report" >&2
  exit 1
fi
echo "check-deploy: deploy/haproxy/haproxy.cfg is valid ($(haproxy -v | head -1 | cut -d' ' -f1-3))"

# 2. The Kubernetes manifests, with pinned tools in a venv of their own.
if ! "$venv/bin/python" -c "import kubernetes_validate, sys; sys.exit(kubernetes_validate.version.__version__ != '$kubernetes_validate_version')" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" 2>/dev/null || { apt_install python3-venv && rm -rf "$venv" && python3 -m venv "$venv"; }
  "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$kubernetes_validate_version"
fi
"$venv/bin/python" scripts/check_deploy.py kubernetes deploy/kubernetes "${kubernetes_versions[@]}"
"$venv/bin/python" scripts/check_deploy.py kustomize deploy/kubernetes "${kubernetes_versions[@]}"
"$venv/bin/python" scripts/check_deploy.py postgres-overlay deploy/kubernetes-postgres "${kubernetes_versions[@]}"
"$venv/bin/python" scripts/check_deploy.py compose "$work/compose.yml"

# Every IAP_* name the files set is one the stages read (a misspelt one would be ignored).
"$venv/bin/python" scripts/check_deploy.py settings docker-compose.yml deploy/kubernetes/*.yaml \
  deploy/kubernetes-postgres/*.yaml deploy/systemd/*

# 3. RabbitMQ's configuration and definitions.
"$venv/bin/python" scripts/check_deploy.py rabbitmq deploy/rabbitmq "$work/compose.yml"

# 3b. A throwaway RabbitMQ node boots with exactly these files (ports and paths moved so
# that it stands beside the shared broker): the configuration is accepted, the plugins run,
# the definitions are loaded at boot, and the compose file's user logs in. The node has a
# cookie of its own, so the rabbitmqctl calls below cannot reach any other node.
boot_check_node() {
  local dir="$work/rabbit" node="iap-deploy-check-$$@localhost" ports
  mkdir -p "$dir" && chmod 755 "$dir"
  read -r -a ports < <("$venv/bin/python" -c 'import socket
socks = [socket.socket() for _ in range(4)]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')
  local amqp=${ports[0]} dist=${ports[1]} management=${ports[2]} prometheus=${ports[3]}
  cp deploy/rabbitmq/definitions.json deploy/rabbitmq/enabled_plugins "$dir/"
  sed -e "s#^load_definitions = .*#load_definitions = $dir/definitions.json#" \
      -e "s#^management.tcp.port = .*#management.tcp.port = $management#" \
      -e "s#^prometheus.tcp.port = .*#prometheus.tcp.port = $prometheus#" \
      deploy/rabbitmq/rabbitmq.conf > "$dir/rabbitmq.conf"
  grep -q "^load_definitions = $dir/" "$dir/rabbitmq.conf" || { echo "check-deploy: rabbitmq.conf has no load_definitions" >&2; return 1; }
  ctl() { env HOME="$dir" /usr/lib/rabbitmq/bin/rabbitmqctl -n "$node" -q "$@"; }
  (cd "$dir" && exec setsid env HOME="$dir" RABBITMQ_NODENAME="$node" RABBITMQ_NODE_PORT="$amqp" \
    RABBITMQ_DIST_PORT="$dist" RABBITMQ_MNESIA_BASE="$dir/mnesia" RABBITMQ_LOG_BASE="$dir/log" \
    RABBITMQ_CONFIG_FILE="$dir/rabbitmq.conf" RABBITMQ_ENABLED_PLUGINS_FILE="$dir/enabled_plugins" \
    RABBITMQ_CONF_ENV_FILE="$dir/none.conf" RABBITMQ_ADVANCED_CONFIG_FILE="$dir/advanced.config" \
    /usr/lib/rabbitmq/bin/rabbitmq-server > "$dir/node.log" 2>&1) &
  local pid=$!
  # Stop it however this function ends: politely, then its process group.
  trap "ctl stop >/dev/null 2>&1 || true; kill -KILL -- -$pid 2>/dev/null || true; rm -rf '$work'" EXIT
  local started=""
  for _ in $(seq 1 90); do
    # await_startup fails at once while the node has not registered with epmd yet.
    if ctl await_startup --timeout 5 >/dev/null 2>&1; then started=1 && break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  if [ -z "$started" ]; then
    echo "check-deploy: RabbitMQ did not boot with deploy/rabbitmq's files:" >&2
    # The first errors say why; the crash reports after them do not.
    { grep '\[error\]' "$dir/node.log" || tail -20 "$dir/node.log"; } | head -12 | cut -c1-240 >&2
    return 1
  fi
  local credentials user password
  credentials=$("$venv/bin/python" -c 'import sys, yaml, urllib.parse as u
url = u.urlsplit(yaml.safe_load(open(sys.argv[1]))["services"]["intake"]["environment"]["IAP_AMQP_URL"])
print(u.unquote(url.username or ""), u.unquote(url.password or ""))' "$work/compose.yml")
  read -r user password <<< "$credentials"
  ctl authenticate_user "$user" "$password" >/dev/null \
    || { echo "check-deploy: the booted broker refuses $user with docker-compose's password" >&2; return 1; }
  local queues expected
  queues=$(ctl list_queues --no-table-headers name | grep -c .)
  expected=$("$venv/bin/python" -c 'import json; print(len(json.load(open("deploy/rabbitmq/definitions.json"))["queues"]))')
  [ "$queues" = "$expected" ] \
    || { echo "check-deploy: the booted broker has $queues queues, definitions.json $expected" >&2; return 1; }
  curl -fsS -o /dev/null "http://127.0.0.1:$prometheus/metrics" \
    || { echo "check-deploy: the prometheus plugin does not answer" >&2; return 1; }
  curl -fsS -o /dev/null -u "$user:$password" "http://127.0.0.1:$management/api/overview" \
    || { echo "check-deploy: the management plugin does not answer $user" >&2; return 1; }
  echo "check-deploy: RabbitMQ $(ctl version) booted with deploy/rabbitmq: $queues queues, $user logs in, management and prometheus answer"
  ctl stop >/dev/null 2>&1 || kill -KILL -- -"$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  trap 'rm -rf "$work"' EXIT
}
boot_check_node

# 4. The systemd units, with ExecStart pointed at a stand-in (the binary is not installed
# here). systemd-analyze only warns about unknown keys, so any output is a failure.
if command -v systemd-analyze >/dev/null 2>&1; then
  printf '#!/bin/sh\n' > "$work/iap" && chmod +x "$work/iap"
  for unit in deploy/systemd/*.service deploy/systemd/*.target; do
    sed "s#/usr/local/bin/iap#$work/iap#" "$unit" > "$work/$(basename "$unit")"
  done
  units=()
  for unit in "$work"/*.service "$work"/*.target; do
    case "$unit" in
      *@.service) units+=("${unit%@.service}@9101.service") ;;
      *) units+=("$unit") ;;
    esac
  done
  if ! report=$(cd "$work" && systemd-analyze verify --man=no "${units[@]}" 2>&1) || [ -n "$report" ]; then
    echo "check-deploy: systemd-analyze verify: ${report//$work/deploy/systemd}" >&2
    exit 1
  fi
  echo "check-deploy: systemd units verified ($(systemd-analyze --version | head -1))"
else
  echo "check-deploy: systemd-analyze is not installed: units not verified"
fi
echo "check-deploy: all deploy files are valid"

#!/usr/bin/env bash
# Checks docker-compose.yml and deploy/ with the tools that will read them:
#   1. Debian's docker-compose parses the compose file (`docker-compose config`);
#   2. kubernetes-validate (PyPI) checks every manifest in deploy/kubernetes, strictly, against
#      pinned Kubernetes versions, and jsonschema checks KEDA's kinds against deploy/kubernetes/schemas;
#   3. the installed RabbitMQ knows every rabbitmq.conf key and plugin, the compose file's AMQP
#      credentials are the ones definitions.json creates, and the running broker imports the
#      definitions into a throwaway vhost (deleted afterwards);
#   4. systemd-analyze verifies the units, when it is installed;
# and every IAP_* setting the files name is one the code reads.
# That the definitions match the code's topology exactly is BrokerTests' DeployDefinitionsTests.
# Installs what it lacks (apt: docker-compose, python3-venv; PyPI: kubernetes-validate) and
# needs a running RabbitMQ (scripts/setup.sh).
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
echo "check-deploy: docker-compose.yml is valid ($(docker-compose version --short))"

# 2. The Kubernetes manifests, with pinned tools in a venv of their own.
if ! "$venv/bin/python" -c "import kubernetes_validate, sys; sys.exit(kubernetes_validate.version.__version__ != '$kubernetes_validate_version')" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv" 2>/dev/null || { apt_install python3-venv && rm -rf "$venv" && python3 -m venv "$venv"; }
  "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$kubernetes_validate_version"
fi
"$venv/bin/python" scripts/check_deploy.py kubernetes deploy/kubernetes "${kubernetes_versions[@]}"

# Every IAP_* name the files set is one the stages read (a misspelt one would be ignored).
"$venv/bin/python" scripts/check_deploy.py settings docker-compose.yml deploy/kubernetes/*.yaml deploy/systemd/*

# 3. RabbitMQ's configuration and definitions.
"$venv/bin/python" scripts/check_deploy.py rabbitmq deploy/rabbitmq "$work/compose.yml"

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

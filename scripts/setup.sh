#!/usr/bin/env bash
# Installs what the pipeline needs from Debian's apt, starts RabbitMQ if it is not
# running, and waits until it accepts connections. Safe to run again.
set -euo pipefail

packages=(rabbitmq-server librabbitmq-dev libsqlite3-dev libcurl4-openssl-dev curl)
# --tests (scripts/test.sh): also a real headless Chromium for the console's browser test
# (Tests/ConsoleBrowser), PostgreSQL for the stores' second backend, gdb, with which a
# hung test pass prints its stacks (scripts/with-deadline.sh), python3-venv and sqlite3
# for schemathesis (scripts/schemathesis.sh), nginx, the HTTP/2 endpoint over TLS that
# the validator's client is tested against (as Apple's), and prometheus for its promtool,
# which checks deploy/prometheus' rules (scripts/check-monitoring.sh); the pipeline needs none.
if [ "${1:-}" = "--tests" ]; then
  packages+=(chromium chromium-driver python3-selenium postgresql gdb python3-venv sqlite3 nginx prometheus)
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  # The tests need only promtool: a Prometheus server the package started (where an init
  # system runs its service) would scrape and store for nothing.
  # Only the package's own daemon: it runs as the user prometheus.
  if [[ " ${missing[*]} " == *" prometheus "* ]] && pgrep -x -u prometheus prometheus >/dev/null 2>&1; then
    echo "setup: stopping the prometheus daemon the package started"
    $sudo service prometheus stop >/dev/null 2>&1 || true
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: swift is at /opt/swift/usr/bin; add it to PATH" >&2
  else
    echo "setup: Swift 6 is required (https://www.swift.org/install/linux/)" >&2
    exit 1
  fi
fi

# No systemd here: start the broker directly when it is not answering. It runs as the
# rabbitmq user through su, whose session gives it a soft limit of 1,024 file descriptors:
# a few hundred test connections and its own files use them up, and it stops accepting
# any. rabbitmq-env.conf is sourced by the broker's start script: raise the soft limit
# there to the hard one.
env_conf=/etc/rabbitmq/rabbitmq-env.conf
if ! grep -q 'ulimit -S -n' "$env_conf" 2>/dev/null; then
  echo 'ulimit -S -n "$(ulimit -H -n)"' | $sudo tee -a "$env_conf" >/dev/null
fi
if ! rabbitmqctl -q status >/dev/null 2>&1; then
  echo "setup: starting rabbitmq-server"
  $sudo rabbitmq-server -detached
fi
for _ in $(seq 1 60); do
  if rabbitmqctl -q await_startup --timeout 5 >/dev/null 2>&1; then
    echo "setup: RabbitMQ $(rabbitmqctl -q version 2>/dev/null) is ready"
    # The store tests also run against a real PostgreSQL.
    if [ "${1:-}" = "--tests" ]; then exec "$(dirname "$0")/postgres.sh"; fi
    exit 0
  fi
  sleep 1
done
echo "setup: RabbitMQ did not become ready; see /var/log/rabbitmq/" >&2
exit 1

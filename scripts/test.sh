#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite against a real RabbitMQ
# and real SQLite files. Tests that restart the broker run in a pass of their own.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

scripts/setup.sh
scripts/check-deploy.sh   # compose, Kubernetes, RabbitMQ and systemd files (deploy/)
swift build --build-tests
swift test --skip-build --skip Disruptive
IAP_TEST_DISRUPTIVE=1 swift test --skip-build --filter Disruptive
# The restart above must leave the broker as it found it.
rabbitmqctl -q await_startup --timeout 60

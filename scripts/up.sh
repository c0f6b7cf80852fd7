#!/usr/bin/env bash
# Sets everything up and runs the whole pipeline in one process on its embedded
# defaults: the stub store as the verify endpoint, a sample catalog, var/iap.sqlite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

scripts/setup.sh
swift build --product iap
exec .build/debug/iap up "$@"

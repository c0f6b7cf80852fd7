#!/usr/bin/env bash
# Sets everything up, builds, and runs the whole test suite against a real RabbitMQ
# and real SQLite files. Tests that restart the broker (Disruptive*) or load the whole
# machine (Alone*) run afterwards in a pass of their own, one at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"

scripts/setup.sh --tests
# A crash prints every frame of the crashed thread (the default elides them), so that a
# rare one seen only in CI can be read from its log.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=yes,interactive=no,limit=none,top=0,threads=crashed}"
# Queues an earlier run left behind when it crashed (tests name theirs test.*): durable
# quorum queues survive broker restarts, and hundreds of them slow the broker down.
rabbitmqctl -q list_queues name | grep '^test\.' | xargs -r -P 4 -n 1 rabbitmqctl -q delete_queue >/dev/null || true
scripts/format.sh --check # every Swift file as .swift-format says (scripts/format.sh fixes it)
scripts/check-deploy.sh   # compose, Kubernetes, RabbitMQ and systemd files (deploy/)
scripts/check-monitoring.sh # the alert rules (promtool check and unit tests) and the Grafana dashboard
# Tests reach the databases through the stores and the Store seam: only DatabaseSQLite and
# DatabasePostgres import a driver.
if grep -rlE '^\s*(@\w+(\([^)]*\))?\s+)*import\s+(\w+\s+)?(GRDB|PostgresNIO)\b' Tests; then
    echo "test.sh: the tests above import a database driver; add a seam method to DatabaseSQLite or DatabasePostgres" >&2
    exit 1
fi
# A warning in this repository's own files fails the run (dependencies' are theirs to fix).
# The compiler prints a file's warnings only when it compiles that file, so this checks
# what this build compiled: everything in CI, which builds a fresh clone (.ci/run); on a
# developer's incremental build, the files changed since the last build and those that
# depend on them. A clean rebuild is not forced: it would cost minutes on every run here,
# and a warning in an unchanged file was already there when CI built it; `rm -rf .build`
# first checks every file.
mkdir -p .build
swift build --build-tests 2>&1 | tee .build/test-build.log
warnings=$(awk -v logical="$PWD/" -v physical="$(pwd -P)/" '
    /: warning: / && (index($0, logical "Sources/") == 1 || index($0, logical "Tests/") == 1 ||
                      index($0, physical "Sources/") == 1 || index($0, physical "Tests/") == 1)
' .build/test-build.log | sort -u)
if [ -n "$warnings" ]; then
    echo "test.sh: the build warned in this repository's files; fix them (a warning here fails the run):" >&2
    echo "$warnings" >&2
    exit 1
fi
# The dot anchors a suite's name: a test whose own name holds the word stays in the main pass.
# At most 4 tests at once: on 2 cores, hundreds at once starved the timing-sensitive ones.
# Each pass has a deadline far beyond its usual time (about 8-16 and 4 minutes here): a hang
# prints its stacks and fails at once instead of running out CI's clock. On a slow host day
# the main pass ran past 20 minutes with every test passing (1,140 of 1,146 by then), so its
# deadline is 40.
scripts/with-summary.sh .build/test-main.log scripts/with-deadline.sh 2400 \
  swift test --skip-build --skip '\.(Disruptive|Alone)' --experimental-maximum-parallelization-width 4
# The API against its contract (docs/openapi.yaml): schemathesis from PyPI, fixed seed, a
# real `iap intake`; no 5xx, every answer as documented, refused requests change nothing.
scripts/with-deadline.sh 600 scripts/schemathesis.sh
# A client generated from the contract: openapi-python-client (PyPI) must take docs/openapi.yaml
# without a warning, and its client submit a receipt and read the account credited by a real
# intake, validator and fulfiller. (The Swift client is GeneratedClientTests, in the pass above.)
scripts/with-deadline.sh 300 scripts/python-client.sh
# A failover test killed at its deadline cannot tear its PostgreSQL cluster down itself.
if [ "$(id -u)" = 0 ]; then trap 'scripts/cluster-postgres.sh down >/dev/null 2>&1 || true' EXIT; fi
# The power-cut volume (a FUSE file system of the lab's, Tools/powercut-fs): built, then held to
# its own rules (what a cut keeps and drops) before the alone pass cuts the pipeline's power on it.
if [ "$(id -u)" = 0 ]; then
    scripts/powercut-fs.sh build >/dev/null
    scripts/with-deadline.sh 300 python3 scripts/powercut_fs_check.py
fi
IAP_TEST_ALONE=1 scripts/with-summary.sh .build/test-alone.log scripts/with-deadline.sh 1800 swift test --skip-build --no-parallel --filter '\.(Disruptive|Alone)'
# The restart above must leave the broker as it found it.
rabbitmqctl -q await_startup --timeout 60

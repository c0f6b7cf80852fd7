#!/usr/bin/env bash
# Checks the monitoring files in deploy/ with the tools that will read them:
#   1. promtool (Debian's prometheus package) checks the alert rules and runs their unit
#      tests, deploy/prometheus/iap-alerts.test.yml: series that fire and do not fire each alert;
#   2. scripts/check_dashboard.py checks the Grafana dashboard's structure for the schema
#      version it declares, and promtool parses every panel's expression as PromQL.
# That every metric a panel or rule names exists in a running pipeline's /metrics is
# ProcessesEndToEndTests' DeployMonitoringTests. Needs scripts/setup.sh --tests (prometheus, python3).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v promtool >/dev/null 2>&1 || { echo "check-monitoring: no promtool; run scripts/setup.sh --tests" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

promtool check rules deploy/prometheus/iap-alerts.yml
promtool test rules deploy/prometheus/iap-alerts.test.yml
python3 scripts/check_dashboard.py deploy/grafana/iap-pipeline.json "$work/dashboard-rules.yml"
promtool check rules "$work/dashboard-rules.yml"
# Every rule's runbook names a heading of docs/monitoring.md (as GitHub makes its anchor).
python3 - <<'PY'
import re, sys
anchors = {re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
           for line in open("docs/monitoring.md") if line.startswith("#")}
runbooks = re.findall(r"runbook: docs/monitoring\.md#(\S+)", open("deploy/prometheus/iap-alerts.yml").read())
missing = sorted(set(runbooks) - anchors)
if missing or not runbooks:
    sys.exit(f"check-monitoring: runbooks without a section in docs/monitoring.md: {missing}")
print(f"check-monitoring: {len(runbooks)} runbook annotations, each a section of docs/monitoring.md")
PY

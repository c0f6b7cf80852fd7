#!/usr/bin/env bash
# Makes (once) a venv with the Standard Webhooks reference library, pinned, from PyPI, and
# prints its python. StandardWebhooksTests verify real webhooks with it.
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.1.0
venv=.build/standard-webhooks-venv
if ! "$venv/bin/pip" show standardwebhooks 2>/dev/null | grep -qx "Version: $version"; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2 || { echo "standard-webhooks: python3 -m venv failed; run scripts/setup.sh --tests" >&2; exit 1; }
  "$venv/bin/pip" install -q --disable-pip-version-check "standardwebhooks==$version" >&2
fi
echo "$PWD/$venv/bin/python"

#!/usr/bin/env bash
# Fuzzes a real intake against its contract, docs/openapi.yaml, with schemathesis (PyPI):
#   1. starts `iap intake` on a free loopback port, a fresh SQLite file and queues of its own
#      (test.schemathesis.*) on the loopback RabbitMQ;
#   2. runs every phase (examples, coverage, fuzzing, stateful through the spec's links) in
#      positive and negative mode with every check: no 5xx, every status, header, content
#      type and body as documented, invalid data refused, auth not ignored, 405 with Allow;
#      with the hooks of scripts/schemathesis_hooks.py: a refused request changes nothing
#      (every table compared before and after), Apple's notifications are sent signed by the
#      stub store (the intake trusts its root, as `iap up` does) and must then be stored, so
#      must Huawei's subscription notifications the stub signed (Huawei is configured with the
#      stub's key) and Stripe's events the hooks sign with the webhook secret made here, and
#      every string member of a well-formed request is sent again with a NUL, which must be
#      refused naming it and change nothing;
#   3. checks that every string member the spec declares was refused with a NUL at least once
#      (scripts/schemathesis_nul.py), and `iap audit` checks the books.
# Exits non-zero on any failure. Needs scripts/setup.sh --tests (RabbitMQ, python3-venv) and
# a built iap (.build/debug/iap, else it builds it). SCHEMATHESIS_EXAMPLES (default 40) bounds
# the test cases per operation and phase; the seed is fixed in scripts/schemathesis.toml.
# The intake, the stub store and the venv are scripts/intake-under-test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/intake-under-test.sh

examples=${SCHEMATHESIS_EXAMPLES:-40}
venv=.build/schemathesis-venv
intake_under_test schemathesis
# schemathesis, pinned, in a venv of its own.
pinned_venv "$venv" "schemathesis==4.32.5"

port=$(free_port)
database="$work/iap.sqlite"
export IAP_SCHEMATHESIS_TOKEN="schemathesis-token-$RANDOM$RANDOM-0123456789"

# Google's pushes are signed by the stub store's key: the intake fetches its JWKS, and
# schemathesis sends a token the stub signed, so it fuzzes past the push's authentication.
start_stub_store
push_audience="http://127.0.0.1:$port/v1/google/notifications"
IAP_SCHEMATHESIS_PUSH_TOKEN=$(curl -fs -X POST "$stub_url/stub/google/push-token" \
  -d "{\"audience\": \"$push_audience\"}" | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["token"])') || true
[ -n "${IAP_SCHEMATHESIS_PUSH_TOKEN:-}" ] || { echo "schemathesis: the stub store gave no push token" >&2; cat "$work/stub.log" >&2; exit 1; }
export IAP_SCHEMATHESIS_PUSH_TOKEN

# Apple's notifications: the intake trusts the stub's StoreKit root, and the hooks send
# notifications the stub signed (a few, each its own row).
curl -fs "http://127.0.0.1:$stub_port/stub/root-ca" | base64 -d > "$work/apple-root.der"
IAP_SCHEMATHESIS_APPLE_PAYLOADS=$(for _ in 1 2 3 4 5; do
  curl -fs -X POST "http://127.0.0.1:$stub_port/stub/notifications/signed" -d '{"notification_type": "TEST"}' \
    | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["signed_payload"])'
done | tr '\n' ' ')
[ -n "${IAP_SCHEMATHESIS_APPLE_PAYLOADS// /}" ] || { echo "schemathesis: the stub store signed no notification" >&2; exit 1; }
export IAP_SCHEMATHESIS_APPLE_PAYLOADS

# Huawei: the intake checks signatures with the stub's IAP key, and the hooks send
# subscription notifications the stub signed about purchases registered there.
huawei_key=$(curl -fs "http://127.0.0.1:$stub_port/stub/huawei/public-key" \
  | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["public_key"])')
[ -n "$huawei_key" ] || { echo "schemathesis: the stub store gave no Huawei key" >&2; exit 1; }
export IAP_SCHEMATHESIS_HUAWEI_PAYLOADS="$work/huawei-subscriptions.jsonl"
for n in 1 2 3 4 5; do
  curl -fs -X POST "http://127.0.0.1:$stub_port/stub/huawei/purchases" \
    -d "{\"purchase_token\": \"schemathesis-sub-$n\", \"product_id\": \"vip_monthly\", \"type\": \"subscription\"}" >/dev/null
  curl -fs -X POST "http://127.0.0.1:$stub_port/stub/huawei/notifications" \
    -d "{\"event\": \"SUBSCRIPTION\", \"notification_type\": $n, \"purchase_token\": \"schemathesis-sub-$n\"}"
  echo
done > "$IAP_SCHEMATHESIS_HUAWEI_PAYLOADS"
grep -q statusUpdateNotification "$IAP_SCHEMATHESIS_HUAWEI_PAYLOADS" \
  || { echo "schemathesis: the stub store signed no Huawei notification" >&2; exit 1; }
# Xiaomi: the hooks sign notices with the app's AppSecret (the stub's), as Xiaomi does.
export IAP_SCHEMATHESIS_XIAOMI_SECRET="stub-xiaomi-app-secret"
# Stripe: the hooks sign events with the endpoint's secret, made here.
export IAP_SCHEMATHESIS_STRIPE_SECRET="whsec_schemathesis$RANDOM$RANDOM"
export IAP_SCHEMATHESIS_NUL_LOG="$work/nul-tried.log"

IAP_DB_PATH="$database" IAP_HTTP_HOST=127.0.0.1 IAP_HTTP_PORT="$port" IAP_API_TOKENS="$IAP_SCHEMATHESIS_TOKEN" \
  IAP_GOOGLE_PUSH_AUDIENCE="$push_audience" IAP_GOOGLE_PUSH_SERVICE_ACCOUNT="pubsub-push@stub-project.iam.gserviceaccount.com" \
  IAP_GOOGLE_CERTS_URL="http://127.0.0.1:$stub_port/google/oauth2/v3/certs" IAP_APPLE_ROOT_CA="$work/apple-root.der" \
  IAP_HUAWEI_CLIENT_ID=107654321 IAP_HUAWEI_CLIENT_SECRET=stub-huawei-secret IAP_HUAWEI_PUBLIC_KEY="$huawei_key" \
  IAP_HUAWEI_OAUTH_URL="http://127.0.0.1:$stub_port/huawei/oauth2/v3/token" \
  IAP_HUAWEI_ORDER_URL="http://127.0.0.1:$stub_port/huawei/orders" \
  IAP_HUAWEI_SUBSCRIPTION_URL="http://127.0.0.1:$stub_port/huawei/subscr" \
  IAP_XIAOMI_APP_ID=2882303761517239138 IAP_XIAOMI_APP_SECRET="$IAP_SCHEMATHESIS_XIAOMI_SECRET" \
  IAP_XIAOMI_QUERY_URL="http://127.0.0.1:$stub_port/xiaomi/api/biz/service/queryOrder.do" \
  IAP_AMAZON_SHARED_SECRET=stub-amazon-shared-secret IAP_AMAZON_PACKAGE_NAME=com.example.game.amazon \
  IAP_AMAZON_RVS_URL="http://127.0.0.1:$stub_port/amazon" \
  IAP_STRIPE_API_KEY=sk_test_schemathesis IAP_STRIPE_WEBHOOK_SECRETS="$IAP_SCHEMATHESIS_STRIPE_SECRET" \
  IAP_STRIPE_API_URL="http://127.0.0.1:$stub_port/stripe" \
  IAP_QUEUE_PREFIX="$prefix" IAP_LOG_LEVEL=warning start_iap intake.log intake
intake_pid=$last_pid
await_ready "$port" "$intake_pid" intake.log
echo "schemathesis: iap intake on 127.0.0.1:$port, database $database, queues $prefix.*"

# SCHEMATHESIS_REPORT_DIR: keep every request and answer there (HAR), to see what failed.
reports=()
[ -n "${SCHEMATHESIS_REPORT_DIR:-}" ] && reports=(--report har,ndjson --report-dir "$SCHEMATHESIS_REPORT_DIR" --output-sanitize false)
run() {
  IAP_SCHEMATHESIS_DATABASE="$database" PYTHONPATH=scripts "$venv/bin/schemathesis" --config-file scripts/schemathesis.toml --no-color run docs/openapi.yaml \
    --url "http://127.0.0.1:$port" --checks all --max-examples "$examples" "${reports[@]}" "$@"
}

status=0
run --mode all --phases examples,coverage,fuzzing,stateful || status=1
echo "schemathesis: rows stored: $(sqlite3 -readonly "$database" "SELECT 'receipts=' || (SELECT count(*) FROM receipts) || ' orders=' || (SELECT count(*) FROM orders) || ' accounts=' || (SELECT count(*) FROM accounts) || ' store_notifications=' || coalesce((SELECT group_concat(store || ':' || n, ',') FROM (SELECT store, count(*) AS n FROM store_notifications GROUP BY store ORDER BY store)), 'none')")"
"$venv/bin/python" scripts/schemathesis_nul.py docs/openapi.yaml "$IAP_SCHEMATHESIS_NUL_LOG" || status=1
IAP_DB_PATH="$database" "$iap" audit || status=1

if grep -qiE 'fatal|crash|panic' "$work/intake.log"; then
  echo "schemathesis: FAILED: the intake logged a crash" >&2
  cat "$work/intake.log" >&2
  status=1
fi
kill -0 "$intake_pid" 2>/dev/null || { echo "schemathesis: FAILED: the intake died" >&2; status=1; }
[ "$status" -eq 0 ] && echo "schemathesis: passed" || echo "schemathesis: FAILED" >&2
exit "$status"

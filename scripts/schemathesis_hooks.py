"""schemathesis hooks for scripts/schemathesis.sh.

- A refused request changes nothing: before each request the intake's SQLite file
  (IAP_SCHEMATHESIS_DATABASE) is read, every table, and again after a 4xx or 5xx answer: the
  two must be equal. Requests run one at a time (workers = 1), so nothing else writes in
  between but the intake's relay, which marks a receipt or notification published a moment
  after its 2xx; those columns are left out.
- Apple's notifications are stored only when the App Store signed them: a schema-valid JWS
  is still refused. So each positive one is sent as one the stub store signed
  (IAP_SCHEMATHESIS_APPLE_PAYLOADS, minted by the script), and must then be stored (200).
  Google's pushes likewise carry a DeveloperNotification the schema cannot describe: a
  positive one gets a real test notification as its `message.data`.
- Huawei's subscription notifications are stored only when the app's IAP key signed them:
  each positive one is sent with a `subNotification` the stub store signed
  (IAP_SCHEMATHESIS_HUAWEI_PAYLOADS, a file of them the script asked the stub for), and must
  then be stored; a positive order notification (Huawei does not sign those) must be answered
  200 too: stored when it names a purchase an app recorded, else ignored and stored nowhere.
- Stripe's events are read only under a `Stripe-Signature` that holds: each positive one is
  signed here, over the exact bytes sent, with the endpoint's secret the script made
  (IAP_SCHEMATHESIS_STRIPE_SECRET), and must then be stored.
- Xiaomi's notices are stored only when the app's AppSecret signed them: each positive one is
  sent as a whole paid order Xiaomi would notify, signed here with the stub's secret
  (IAP_SCHEMATHESIS_XIAOMI_SECRET, HMAC-SHA1 over the sorted parameters), and must then be
  stored; what schemathesis makes of the query otherwise is refused.
- NUL in every string member (scripts/schemathesis_nul.py): each one of a well-formed
  request, sent again with a NUL, must be refused and change nothing; which members were
  tried is logged to IAP_SCHEMATHESIS_NUL_LOG for the coverage report. A Stripe event's copy is
  signed again; a NUL in a member another party signed (Huawei's status) is refused with 401.
"""

import base64
import hashlib
import hmac
import itertools
import json
import os
import re
import sqlite3
import time
from collections import Counter

import requests
import schemathesis
from schemathesis.core.parameters import ParameterLocation

import schemathesis_nul as nul

DATABASE = os.environ["IAP_SCHEMATHESIS_DATABASE"]
APPLE_PAYLOADS = itertools.cycle(os.environ["IAP_SCHEMATHESIS_APPLE_PAYLOADS"].split())
NUL_LOG = os.environ["IAP_SCHEMATHESIS_NUL_LOG"]
with open(os.environ["IAP_SCHEMATHESIS_HUAWEI_PAYLOADS"]) as _file:
    HUAWEI_SUBSCRIPTIONS = itertools.cycle([json.loads(line)["subNotification"] for line in _file if line.strip()])
STRIPE_SECRET = os.environ["IAP_SCHEMATHESIS_STRIPE_SECRET"]
XIAOMI_SECRET = os.environ["IAP_SCHEMATHESIS_XIAOMI_SECRET"].encode()
_xiaomi_orders = itertools.count(1)
# The whole numbers Huawei's plug-in reads as a notificationType (Int64), with room to spare.
HUAWEI_NUMBER = re.compile(r"[+-]?[0-9]{1,15}")
GOOGLE_TEST_DATA = base64.b64encode(json.dumps({
    "version": "1.0", "packageName": "com.example.game", "eventTimeMillis": "1764064800000",
    "testNotification": {"version": "1.0"},
}).encode()).decode()
# Written by the relay, asynchronously, after an accepted request.
RELAY_COLUMNS = {
    "receipts": {"status", "published_at", "updated_at", "relay"},
    "store_notifications": {"status", "published_at", "updated_at", "relay"},
    # The relay says it is alive at every sweep, whatever the requests.
    "relays": {"seen_at"},
}

_before: dict[str, dict[str, str]] = {}
_signed_by_the_stub: set[str] = set()
_nul_tries: Counter = Counter()
_declared: dict[str, set[str]] = {}


def snapshot() -> dict[str, str]:
    """Each table's rows (sorted, relay columns left out) as a digest."""
    connection = sqlite3.connect(f"file:{DATABASE}?mode=ro", uri=True, timeout=10)
    try:
        connection.execute("BEGIN")  # one read transaction: every table as of one moment
        tables = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        digests = {}
        for table in tables:
            columns = [row[1] for row in connection.execute(f'PRAGMA table_info("{table}")')
                       if row[1] not in RELAY_COLUMNS.get(table, set())]
            selected = ", ".join(f'"{column}"' for column in columns)
            rows = sorted(repr(row) for row in connection.execute(f'SELECT {selected} FROM "{table}"'))
            digests[table] = f"{len(rows)} rows " + hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]
        return digests
    finally:
        connection.close()


def changes(before, after):
    return "; ".join(f"{table}: {before.get(table)} -> {after.get(table)}"
                     for table in sorted(set(before) | set(after)) if before.get(table) != after.get(table))


def positive_body(case) -> bool:
    return isinstance(case.body, dict) and (case.meta is None or not case.meta.is_negative_at(ParameterLocation.BODY))


def stripe_signature(body: bytes) -> str:
    """What Stripe sends: `t=<now>,v1=<hex HMAC-SHA256 of "<t>.<body>">` under the endpoint's secret."""
    timestamp = str(int(time.time()))
    mac = hmac.new(STRIPE_SECRET.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def huawei_number(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) < 2 ** 53
    return isinstance(value, str) and HUAWEI_NUMBER.fullmatch(value) is not None


def sign_stripe_event(case, kwargs):
    """Signs a positive event with the script's secret, over the bytes sent: the body is
    serialized here and handed to the transport as they are."""
    headers = case.headers or {}
    name = next((key for key in headers if key.lower() == "stripe-signature"), None)
    if name is None or not positive_body(case) or (
            case.meta is not None and case.meta.is_negative_at(ParameterLocation.HEADER)):
        return
    body = json.dumps(case.body).encode()
    kwargs["data"] = body
    case.headers = {**headers, name: stripe_signature(body)}
    _signed_by_the_stub.add(case.id)


def xiaomi_notice() -> dict:
    """A paid order as Xiaomi notifies it, signed with the app's secret: its own order id each time."""
    n = next(_xiaomi_orders)
    params = {
        "appId": "2882303761517239138", "cpOrderId": f"schemathesis-{n}", "uid": "100010",
        "orderId": f"2100000{n:06d}", "orderStatus": "TRADE_SUCCESS", "payFee": "600",
        "productCode": "com.example.coins100", "productName": "100 coins", "productCount": "1",
        "payTime": "2024-11-07 13:56:00", "cpUserInfo": "player-1", "orderConsumeType": "10",
        "partnerGiftConsume": "0",
    }
    text = "&".join(f"{k}={v}" for k, v in sorted(params.items()) if v)
    params["signature"] = hmac.new(XIAOMI_SECRET, text.encode(), hashlib.sha1).hexdigest()
    return params


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = case.operation.definition.raw.get("operationId")
    if operation == "receiveAppleNotification" and positive_body(case) and isinstance(
            case.body.get("signedPayload"), str):
        case.body = {**case.body, "signedPayload": next(APPLE_PAYLOADS)}
        _signed_by_the_stub.add(case.id)
    if operation == "receiveGoogleNotification" and positive_body(case) and isinstance(case.body.get("message"), dict):
        case.body = {**case.body, "message": {**case.body["message"], "data": GOOGLE_TEST_DATA}}
    if operation == "receiveHuaweiNotification" and positive_body(case):
        if case.body.get("eventType") == "SUBSCRIPTION" and isinstance(case.body.get("subNotification"), dict):
            case.body = {**case.body, "subNotification": next(HUAWEI_SUBSCRIPTIONS)}
            _signed_by_the_stub.add(case.id)
        order = case.body.get("orderNotification")
        if case.body.get("eventType") == "ORDER" and isinstance(order, dict) and huawei_number(
                order.get("notificationType")):
            _signed_by_the_stub.add(case.id)  # unsigned, but as Huawei would send it
    if operation == "receiveStripeNotification":
        sign_stripe_event(case, kwargs)
    if operation == "receiveXiaomiNotification" and (
            case.meta is None or not case.meta.is_negative_at(ParameterLocation.QUERY)):
        case.query = xiaomi_notice()
        if "params" in kwargs:
            kwargs["params"] = case.query
        _signed_by_the_stub.add(case.id)
    _before[case.id] = snapshot()


@schemathesis.check
def refused_request_changes_nothing(ctx, response, case):
    before = _before.pop(case.id, None)
    if before is None or response.status_code < 400:
        return None
    after = snapshot()
    if before != after:
        raise AssertionError(f"A request answered {response.status_code} changed the database: "
                             + changes(before, after))
    return None


@schemathesis.check
def a_notification_the_stub_signed_is_stored(ctx, response, case):
    request = response.request
    # Request-shape probes (another method, another content type) are refused for that.
    as_the_store_posts = request.method == "POST" and request.headers.get("Content-Type", "").startswith(
        "application/json") or request.method == "GET" and "/v1/xiaomi/notifications" in request.url
    if case.id in _signed_by_the_stub and as_the_store_posts and response.status_code not in (200, 429):
        raise AssertionError(f"A notification the stub store signed was answered {response.status_code}: "
                             + response.content[:300].decode(errors="replace"))
    return None


@schemathesis.check
def nul_in_any_string_member_is_refused(ctx, response, case):
    if response.status_code not in nul.MUTATED_STATUSES:
        return None
    operation = case.operation.definition.raw.get("operationId")
    if not _declared:
        _declared.update(nul.declared_members(case.operation.schema.raw_schema))
    request = response.request
    for kind, member, method, url, body in nul.mutations(request, case.operation.path):
        key = (operation, kind, nul.template(member))
        if _nul_tries[key] >= nul.TRIES_PER_MEMBER:
            continue
        _nul_tries[key] += 1
        # A member Apple's or Google's body adds beside the declared ones is not read: a NUL
        # there may be taken, as long as it is not stored.
        declared = f"{kind}:{nul.template(member)}" in _declared.get(operation, set())
        before = snapshot()
        headers = {name: value for name, value in request.headers.items() if name.lower() != "content-length"}
        if operation == "receiveStripeNotification" and "Stripe-Signature" in headers and isinstance(body, bytes):
            headers["Stripe-Signature"] = stripe_signature(body)  # the copy as Stripe would sign it
        answer = requests.request(method, url, headers=headers, data=body, timeout=30)
        problem = nul.refusal_problem(kind, member, answer) if declared or answer.status_code >= 300 else None
        after = snapshot()
        if problem is None and before != after:
            problem = "changed the database: " + changes(before, after)
        if problem:
            raise AssertionError(f"NUL in {kind} member {nul.display(member)!r} of {method} {url}: {problem}: "
                                 + answer.text[:300])
        # A NUL in a member another party signed breaks the signature: refused, 401.
        signed_over = answer.status_code == 401 and response.status_code < 300
        if kind != "body" or answer.status_code == 400 or signed_over:
            with open(NUL_LOG, "a") as log:
                log.write(f"{operation} {kind}:{nul.template(member)}\n")
    return None

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
- NUL in every string member (scripts/schemathesis_nul.py): each one of a well-formed
  request, sent again with a NUL, must be refused and change nothing; which members were
  tried is logged to IAP_SCHEMATHESIS_NUL_LOG for the coverage report.
"""

import base64
import hashlib
import itertools
import json
import os
import sqlite3
from collections import Counter

import requests
import schemathesis
from schemathesis.core.parameters import ParameterLocation

import schemathesis_nul as nul

DATABASE = os.environ["IAP_SCHEMATHESIS_DATABASE"]
APPLE_PAYLOADS = itertools.cycle(os.environ["IAP_SCHEMATHESIS_APPLE_PAYLOADS"].split())
NUL_LOG = os.environ["IAP_SCHEMATHESIS_NUL_LOG"]
GOOGLE_TEST_DATA = base64.b64encode(json.dumps({
    "version": "1.0", "packageName": "com.example.game", "eventTimeMillis": "1764064800000",
    "testNotification": {"version": "1.0"},
}).encode()).decode()
# Written by the relay, asynchronously, after an accepted request.
RELAY_COLUMNS = {
    "receipts": {"status", "published_at", "updated_at"},
    "store_notifications": {"status", "published_at", "updated_at"},
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


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = case.operation.definition.raw.get("operationId")
    if operation == "receiveAppleNotification" and positive_body(case) and isinstance(
            case.body.get("signedPayload"), str):
        case.body = {**case.body, "signedPayload": next(APPLE_PAYLOADS)}
        _signed_by_the_stub.add(case.id)
    if operation == "receiveGoogleNotification" and positive_body(case) and isinstance(case.body.get("message"), dict):
        case.body = {**case.body, "message": {**case.body["message"], "data": GOOGLE_TEST_DATA}}
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
    as_apple_posts = request.method == "POST" and request.headers.get("Content-Type", "").startswith("application/json")
    if case.id in _signed_by_the_stub and as_apple_posts and response.status_code not in (200, 429):
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
        answer = requests.request(method, url, headers=headers, data=body, timeout=30)
        problem = nul.refusal_problem(kind, member, answer) if declared or answer.status_code >= 300 else None
        after = snapshot()
        if problem is None and before != after:
            problem = "changed the database: " + changes(before, after)
        if problem:
            raise AssertionError(f"NUL in {kind} member {nul.display(member)!r} of {method} {url}: {problem}: "
                                 + answer.text[:300])
        if kind != "body" or answer.status_code == 400:
            with open(NUL_LOG, "a") as log:
                log.write(f"{operation} {kind}:{nul.template(member)}\n")
    return None

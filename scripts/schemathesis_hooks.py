"""schemathesis hooks for scripts/schemathesis.sh: a check that a refused request changed nothing.

Before each request the intake's SQLite file (IAP_SCHEMATHESIS_DATABASE) is read, every
table, and again after a 4xx or 5xx answer: the two must be equal. Requests run one at a
time (workers = 1), so nothing else writes in between but the intake's relay, which marks a
receipt or notification published a moment after its 2xx; those columns are left out.
"""

import hashlib
import os
import sqlite3

import schemathesis

DATABASE = os.environ["IAP_SCHEMATHESIS_DATABASE"]
# Written by the relay, asynchronously, after an accepted request.
RELAY_COLUMNS = {
    "receipts": {"status", "published_at", "updated_at"},
    "apple_notifications": {"status", "published_at", "updated_at"},
}

_before: dict[str, dict[str, str]] = {}


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


@schemathesis.hook
def before_call(context, case, kwargs):
    _before[case.id] = snapshot()


@schemathesis.check
def refused_request_changes_nothing(ctx, response, case):
    before = _before.pop(case.id, None)
    if before is None or response.status_code < 400:
        return None
    after = snapshot()
    changed = {table: (before.get(table), after.get(table)) for table in set(before) | set(after)
               if before.get(table) != after.get(table)}
    if changed:
        raise AssertionError(
            f"A request answered {response.status_code} changed the database: "
            + "; ".join(f"{table}: {old} -> {new}" for table, (old, new) in sorted(changed.items())))
    return None

#!/usr/bin/env python3
"""Attacks a running pipeline from outside, as the tenancy probe of issue 53 did, and says
what held.

It speaks only HTTP: to the intake (as a backend, a store, a stranger and an operator) and to
the stub stores' admin routes, which play the stores' part (a genuine purchase a player holds,
a Stripe event Stripe signed). Each attack is a check that prints `held` or `BROKE` with what it
saw; the exit status is 1 when any broke. `Tests/TenancyEndToEndTests/AloneProbeTests.swift` runs it
against two apps' pipeline in CI's pass of tests run alone.

Settings, from the environment:
  PROBE_INTAKE             the intake's base URL (http://127.0.0.1:8080)
  PROBE_STUB               the stub stores' base URL
  PROBE_PUZZLE_TOKEN       the default app's backend token
  PROBE_RACER_TOKEN        the second app's backend token
  PROBE_PUZZLE_STRIPE      the default app's Stripe webhook secret
  PROBE_RACER_STRIPE       the second app's Stripe webhook secret
  PROBE_RACER_STRIPE_KEY   the second app's Stripe API key (its account at the stub)
  PROBE_READER             an operator without the adjust role, name:secret
  PROBE_ADJUSTER           an operator with it, name:secret
"""
import http.client
import json
import os
import sys
import time
import urllib.parse
import uuid

ENV = os.environ
INTAKE = ENV["PROBE_INTAKE"]
STUB = ENV["PROBE_STUB"]
PUZZLE = ENV["PROBE_PUZZLE_TOKEN"]
RACER = ENV["PROBE_RACER_TOKEN"]
RUN = uuid.uuid4().hex[:8]
results = []


def request(method, url, body=None, headers=None, source=None, form=None):
    """One request; (status, parsed JSON or text, headers). `source` binds the client address."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=15, source_address=(source, 0) if source else None)
    headers = dict(headers or {})
    data = None
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    path = parts.path + (("?" + parts.query) if parts.query else "")
    connection.request(method, path, body=data, headers=headers)
    response = connection.getresponse()
    raw = response.read()
    connection.close()
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = raw.decode("utf-8", "replace")
    return response.status, parsed, dict(response.getheaders())


def api(method, path, token, body=None):
    return request(method, INTAKE + path, body, {"Authorization": "Bearer " + token})


def coins(account, token):
    status, answer, _ = api("GET", "/v1/accounts/" + urllib.parse.quote(account, safe=""), token)
    return (answer.get("balances") or {}).get("coins", 0) if status == 200 else 0


def until(condition, timeout=30.0):
    """Polls `condition` until it holds or `timeout` passes; its last value."""
    deadline = time.time() + timeout
    while True:
        value = condition()
        if value or time.time() > deadline:
            return value
        time.sleep(0.2)


def final_receipt(receipt_id, token):
    def read():
        _, answer, _ = api("GET", "/v1/receipts/" + receipt_id, token)
        return answer if answer.get("status") in ("credited", "rejected", "dead") else None
    return until(read) or {}


def check(name, held, seen):
    results.append((name, held, seen))
    print(("held  " if held else "BROKE ") + name + ("" if held else ": " + str(seen)[:400]), flush=True)


def attack(function):
    try:
        function()
    except Exception as error:  # an attack that cannot run is a finding too
        check(function.__name__, False, "the attack failed to run: %r" % (error,))


# -- 1: an app's token in another app's purchase ------------------------------------------

def cross_app_token():
    status, order, _ = api("POST", "/v1/orders", RACER, {"account_id": "px-" + RUN, "product_id": "com.example.coins100"})
    token = order.get("app_account_token")
    _, signed, _ = request("POST", STUB + "/stub/transactions/signed",
                           {"product_id": "com.example.coins100", "app_account_token": token})
    _, posted, _ = api("POST", "/v1/receipts", PUZZLE,
                       {"account_id": "p1-" + RUN, "signed_transaction": signed["signed_transaction"]})
    receipt = final_receipt(posted["receipt_id"], PUZZLE)
    check("a purchase carrying another app's token credits its own app's buyer",
          receipt.get("status") == "credited" and coins("p1-" + RUN, PUZZLE) == 100 and coins("px-" + RUN, RACER) == 0,
          {"order": status, "receipt": receipt, "racer": coins("px-" + RUN, RACER)})
    status, mine, _ = api("POST", "/v1/orders", PUZZLE,
                          {"account_id": "p2-" + RUN, "product_id": "com.example.coins100", "app_account_token": token})
    check("ordering with another app's token tells nothing of it (no 409 oracle)", status == 201, (status, mine))
    status, null, _ = api("POST", "/v1/orders", PUZZLE, {
        "account_id": "p3-" + RUN, "product_id": "com.example.coins100",
        "app_account_token": "00000000-0000-0000-0000-000000000000"})
    check("the nil UUID is no app account token", status == 400, (status, null))


# -- 2: Stripe events of another app's account ------------------------------------------

def stripe_event(session, secret):
    _, event, _ = request("POST", STUB + "/stripe/stub/events",
                          {"type": "checkout.session.completed", "object": session, "secret": secret})
    return request("POST", INTAKE + "/v1/stripe/notifications", event["body"].encode(),
                   {"Stripe-Signature": event["signature"]})


def stripe_across_apps():
    buyer = "ps-" + RUN
    _, session, _ = request("POST", STUB + "/stripe/stub/sessions", {
        "client_reference_id": buyer, "lookup_key": "com.example.coins100",
        "stripe_account": ENV["PROBE_RACER_STRIPE_KEY"]})
    status, answer, _ = stripe_event(session["session"], ENV["PROBE_RACER_STRIPE"])
    credited = until(lambda: coins(buyer, RACER) == 100)
    check("an event signed with the second app's secret credits that app's buyer alone",
          status == 200 and credited and coins(buyer, PUZZLE) == 0, (status, answer, coins(buyer, PUZZLE)))
    for named in ("racer/" + buyer, "<img src=x onerror=alert(1)>"):
        _, session, _ = request("POST", STUB + "/stripe/stub/sessions",
                                {"client_reference_id": named, "lookup_key": "com.example.coins100"})
        status, answer, _ = stripe_event(session["session"], ENV["PROBE_PUZZLE_STRIPE"])
        time.sleep(2)
        check("a session naming %r credits nobody" % named, coins(buyer, RACER) == 100, (status, answer))


# -- 3, 4: unsigned Huawei notices ---------------------------------------------------------

def order_notice(kind, token):
    return json.dumps({"version": "v2", "eventType": "ORDER", "notifyTime": int(time.time() * 1000),
                       "applicationId": "107654321",
                       "orderNotification": {"version": "v2", "notificationType": kind, "purchaseToken": token,
                                             "productId": "com.example.coins100"}}).encode()


def unsigned_huawei_refund():
    token, buyer = "hw-probe-" + RUN, "ph-" + RUN
    request("POST", STUB + "/stub/huawei/purchases",
            {"purchase_token": token, "product_id": "com.example.coins100", "type": "consumable",
             "order_id": "HW.PROBE." + RUN})
    _, posted, _ = api("POST", "/v1/receipts", PUZZLE, {"account_id": buyer, "huawei": {
        "product_id": "com.example.coins100", "purchase_token": token, "type": "consumable"}})
    final_receipt(posted["receipt_id"], PUZZLE)
    status, answer, _ = request("POST", INTAKE + "/v1/huawei/notifications", order_notice(2, token))
    time.sleep(3)
    check("an unsigned refund notice of a purchase Huawei reads as bought takes nothing back",
          coins(buyer, PUZZLE) == 100, (status, answer, coins(buyer, PUZZLE)))


def huawei_flood():
    answers = [request("POST", INTAKE + "/v1/huawei/notifications", order_notice(2, "hw-none-%s-%d" % (RUN, n)))
               for n in range(60)]
    stored = [a for s, a, _ in answers if isinstance(a, dict) and "notification_id" in a]
    check("unsigned notices about purchases no app recorded are stored nowhere",
          not stored and all(s in (200, 429) for s, _, _ in answers), stored[:3] or [s for s, _, _ in answers][:10])


# -- the stores' credentials ---------------------------------------------------------------

def forged_notifications():
    stripe, _, _ = request("POST", INTAKE + "/v1/stripe/notifications", b'{"id":"evt_x","type":"charge.refunded"}')
    google, _, _ = request("POST", INTAKE + "/v1/google/notifications",
                           b'{"message":{"data":"e30=","messageId":"1"},"subscription":"s"}')
    apple, _, _ = request("POST", INTAKE + "/v1/apple/notifications", b'{"signedPayload":"a.b.c"}')
    _, genuine, _ = request("POST", STUB + "/stub/huawei/notifications",
                            {"event": "SUBSCRIPTION", "notification_type": 1, "purchase_token": "x"})
    # Huawei's signature over the status, the status then changed: a cancellation it never signed.
    genuine["subNotification"]["statusUpdateNotification"] += " "
    huawei, _, _ = request("POST", INTAKE + "/v1/huawei/notifications", json.dumps(genuine).encode())
    check("unsigned or forged notices of every store are refused", (stripe, google, apple, huawei) == (401, 401, 400, 401),
          (stripe, google, apple, huawei))


def one_flood_limits_one_route():
    statuses = [request("POST", INTAKE + "/v1/huawei/notifications", b"{}")[0] for _ in range(120)]
    stripe, _, _ = request("POST", INTAKE + "/v1/stripe/notifications", b"{}")
    check("a flood on one store's route leaves another store's route open",
          429 in statuses and stripe != 429, (statuses.count(429), stripe))


# -- identities and reads across apps ------------------------------------------------------

def identities_across_apps():
    bad = [api("POST", "/v1/receipts", PUZZLE, {"account_id": named, "receipt_data": "AAAA"})[0]
           for named in ("racer/player-1", "<b>x</b>", "a" * 129)]
    check("account ids outside the API's rules are refused", bad == [400, 400, 400], bad)
    _, posted, _ = api("POST", "/v1/receipts", RACER, {"account_id": "pr-" + RUN, "receipt_data": "AAAA"})
    status, _, _ = api("GET", "/v1/receipts/" + posted.get("receipt_id", "none"), PUZZLE)
    check("an app cannot read another app's receipt", status == 404, status)
    _, order, _ = api("POST", "/v1/orders", RACER, {"account_id": "po-" + RUN, "product_id": "com.example.coins100"})
    _, signed, _ = request("POST", STUB + "/stub/transactions/signed", {"product_id": "com.example.coins100"})
    _, posted, _ = api("POST", "/v1/receipts", PUZZLE, {"account_id": "pq-" + RUN, "order_id": order.get("order_id"),
                                                        "signed_transaction": signed["signed_transaction"]})
    if "receipt_id" in posted:
        final_receipt(posted["receipt_id"], PUZZLE)
    _, read, _ = api("GET", "/v1/orders/" + str(order.get("order_id")), RACER)
    check("a receipt naming another app's order neither pays it nor credits its buyer",
          read.get("status") == "open" and coins("po-" + RUN, RACER) == 0, (posted, read))


# -- the console ---------------------------------------------------------------------------

def login(operator, source=None):
    name, secret = operator.split(":", 1)
    status, _, headers = request("POST", INTAKE + "/console/login", form={"name": name, "secret": secret},
                                 headers={"Origin": INTAKE}, source=source)
    cookie = headers.get("Set-Cookie", "").split(";")[0]
    return status, cookie


def console_roles():
    status, cookie = login(ENV["PROBE_READER"])
    refused = [request("POST", INTAKE + path, form={"reason": "x"}, headers={"Cookie": cookie})[0]
               for path in ("/console/dead/x/discard", "/console/dead/x/replay", "/console/groups/discard",
                            "/console/webhooks/replay-failed", "/console/accounts/p1/adjust")]
    check("a read-only operator may not discard, replay, resend or grant", refused == [403] * 5, (status, refused))


def login_throttle():
    name = ENV["PROBE_ADJUSTER"].split(":", 1)[0]
    guesses = [login(name + ":wrong-guess-%d-%s" % (n, RUN), source="127.0.0.2")[0] for n in range(9)]
    status, cookie = login(ENV["PROBE_ADJUSTER"], source="127.0.0.1")
    check("a stranger's wrong guesses never slow an operator's own login",
          429 in guesses and status in (200, 303) and cookie, (guesses, status))


# -- the stub stores -----------------------------------------------------------------------

def stub_arithmetic():
    status, _, _ = request("POST", STUB + "/stripe/stub/sessions",
                           {"client_reference_id": "x", "lookup_key": "y", "quantity": 9223372036854775807})
    healthy, _, _ = request("GET", STUB + "/stub/stats")
    alive, _, _ = request("GET", INTAKE + "/healthz")
    check("a huge number sent to a stub is refused and nothing goes down", (status, healthy, alive) == (400, 200, 200),
          (status, healthy, alive))


# The floods last of all on their routes: a route's bucket, once emptied, answers 429 for a while.
ATTACKS = [forged_notifications, cross_app_token, stripe_across_apps, unsigned_huawei_refund, identities_across_apps,
           console_roles, login_throttle, stub_arithmetic, huawei_flood, one_flood_limits_one_route]

if __name__ == "__main__":
    for attack_function in ATTACKS:
        attack(attack_function)
    broke = [name for name, held, _ in results if not held]
    print("%d held, %d broke" % (len(results) - len(broke), len(broke)))
    sys.exit(1 if broke else 0)

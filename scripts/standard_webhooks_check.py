#!/usr/bin/env python3
"""Verifies webhook deliveries with the Standard Webhooks reference library (standardwebhooks
from PyPI), as a receiver in Python would: every delivery must verify under each --accept
secret (during a rotation, the old and the new), and be refused under each --refuse secret
and, with one byte of its body changed, under every secret.

Input: a JSON file of [{"headers": {name: value}, "body": "..."}], as a receiver got them.
Used by ProcessesEndToEndTests' StandardWebhooksTests; scripts/standard-webhooks-venv.sh makes the venv."""
import argparse
import json
import sys

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def verifies(secret, body, headers):
    try:
        Webhook(secret).verify(body, headers)
        return True
    except WebhookVerificationError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("deliveries")
    parser.add_argument("--accept", action="append", default=[])
    parser.add_argument("--refuse", action="append", default=[])
    arguments = parser.parse_args()
    deliveries = json.load(open(arguments.deliveries))
    problems = []
    for delivery in deliveries:
        body, headers = delivery["body"], delivery["headers"]
        name = headers.get("webhook-id", "?")
        tampered = body.replace("account_id", "account_iD", 1)
        for index, secret in enumerate(arguments.accept):
            if not verifies(secret, body, headers):
                problems.append(f"{name}: refused under accepted secret {index}")
            if tampered == body or verifies(secret, tampered, headers):
                problems.append(f"{name}: a changed body verified under secret {index}")
        for index, secret in enumerate(arguments.refuse):
            if verifies(secret, body, headers):
                problems.append(f"{name}: verified under refused secret {index}")
    for problem in problems:
        print(problem)
    print(f"standardwebhooks: {len(deliveries)} deliveries, {len(arguments.accept)} accepted secrets, "
          f"{len(arguments.refuse)} refused secrets, {len(problems)} problems")
    sys.exit(1 if problems or not deliveries else 0)


main()

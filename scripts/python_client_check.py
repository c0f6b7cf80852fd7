"""A backend's use of the Python client openapi-python-client generated from docs/openapi.yaml,
against a running pipeline (scripts/python-client.sh generates the client and starts it):

    PYTHONPATH=<the folder holding iap_client> python scripts/python_client_check.py API_URL TOKEN STUB_URL

1. a legacy receipt the stub store mints is submitted with `submit_receipt` and answered 202
   as a ReceiptSummary;
2. the account is read with `get_account` until it holds the product's 100 coins, and the
   receipt with `get_receipt` is `credited`;
3. a receipt with no store's member is refused: 400 decoded as the spec's BadRequestError
   (`missing_receipt`), and a Google Play member is built from its own named model.
Exits non-zero on any failure.
"""

import json
import sys
import time
import urllib.request
import uuid

from iap_client import AuthenticatedClient
from iap_client.api.accounts import get_account
from iap_client.api.receipts import get_receipt, submit_receipt
from iap_client.models import (
    AccountDetails,
    BadRequestError,
    GooglePlayPurchase,
    ReceiptDetails,
    ReceiptStatus,
    ReceiptSubmission,
    ReceiptSummary,
)


def mint_receipt(stub_url: str, transaction_id: str) -> str:
    """A legacy receipt of one coins100 transaction that the stub store vouches for."""
    body = json.dumps({"transactions": [{"transaction_id": transaction_id, "product_id": "com.example.coins100"}]})
    request = urllib.request.Request(f"{stub_url}/stub/receipts", data=body.encode(), method="POST")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["receipt_data"]


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)
    print(f"python-client: ok: {what}")


def main(api_url: str, token: str, stub_url: str) -> None:
    client = AuthenticatedClient(base_url=api_url, token=token, raise_on_unexpected_status=True)
    account_id = f"python-client-{uuid.uuid4().hex[:12]}"

    receipt = mint_receipt(stub_url, str(int(time.time() * 1000)))
    submission = ReceiptSubmission(account_id=account_id, receipt_data=receipt)
    submitted = submit_receipt.sync_detailed(client=client, body=submission)
    check(submitted.status_code == 202 and isinstance(submitted.parsed, ReceiptSummary),
          f"submit_receipt answered {submitted.status_code} with a ReceiptSummary")
    receipt_id = str(submitted.parsed.receipt_id)

    account = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = get_account.sync_detailed(account_id, client=client)
        account = answer.parsed if answer.status_code == 200 else None
        if isinstance(account, AccountDetails) and account.balances.additional_properties.get("coins") == 100:
            break
        time.sleep(0.25)
    check(isinstance(account, AccountDetails) and account.balances.additional_properties.get("coins") == 100,
          f"get_account reads {account_id} credited with 100 coins")
    check([entry.kind.value for entry in account.ledger] == ["purchase"], "its ledger holds the purchase")

    details = get_receipt.sync(receipt_id, client=client)
    check(isinstance(details, ReceiptDetails) and details.status == ReceiptStatus.CREDITED,
          f"get_receipt reads receipt {receipt_id} credited")

    refused = submit_receipt.sync_detailed(client=client, body=ReceiptSubmission(account_id=account_id))
    check(refused.status_code == 400 and isinstance(refused.parsed, BadRequestError)
          and refused.parsed.error.code == "missing_receipt",
          "a receipt without a store's member is refused as a BadRequestError (missing_receipt)")

    purchase = GooglePlayPurchase(package_name="com.example.game", product_id="coins", purchase_token="token-1")
    body = ReceiptSubmission(account_id=account_id, google_play=purchase).to_dict()
    check(body["google_play"] == {"package_name": "com.example.game", "product_id": "coins",
                                  "purchase_token": "token-1"},
          "a Google Play member is its own model in the body")


if __name__ == "__main__":
    try:
        main(*sys.argv[1:4])
    except Exception as error:  # every failure, a refused check or an error of the client, exits 1
        print(f"python-client: FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    print("python-client: passed")

import json, sys, time, urllib.request
rate = float(sys.argv[1]); seconds = float(sys.argv[2])
token = "dev-token-change-me-0001"
n = int(rate * seconds)
# mint first, so that minting costs nothing during the measured window
receipts = []
for i in range(n):
    req = urllib.request.Request("http://127.0.0.1:8090/stub/receipts",
        data=json.dumps({"bundle_id": "com.example.game", "transactions": [{"product_id": "com.example.coins100"}]}).encode())
    receipts.append(json.load(urllib.request.urlopen(req))["receipt_data"])
print("minted", n, flush=True)
input()  # wait for the go
start = time.monotonic()
for i, r in enumerate(receipts):
    due = start + i / rate
    now = time.monotonic()
    if due > now: time.sleep(due - now)
    req = urllib.request.Request("http://127.0.0.1:8080/v1/receipts",
        data=json.dumps({"account_id": "p%d" % (i % 50), "receipt_data": r}).encode(),
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    urllib.request.urlopen(req).read()
print("posted", n, time.monotonic() - start, flush=True)

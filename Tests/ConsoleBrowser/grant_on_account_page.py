#!/usr/bin/python3
"""Finds an account by a transaction id and grants it coins, in a real headless Chromium.

Run by Tests/ConsoleEndToEndTests/ConsoleAccountTests.swift with Debian's python3, chromium,
chromium-driver and python3-selenium: an operator with the adjust role logs in, finds the
account by a transaction id, reads its timeline in order, grants 100 coins with a reason,
and sees the balance, the timeline entry with her name and the account.adjusted webhook;
then a read-only operator opens the same page and finds no grant form. Saves screenshots;
exits non-zero (with the reason on stderr) if any step fails.
"""
import argparse
import os
import sys

from console_browser import Failed, check, chromium, log_in
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True, help="the intake, e.g. http://127.0.0.1:8080")
    parser.add_argument("--adjuster", required=True, help="name:secret of an operator with the adjust role")
    parser.add_argument("--reader", required=True, help="name:secret of a read-only operator")
    parser.add_argument("--transaction", required=True, help="a transaction id of the account")
    parser.add_argument("--account", required=True, help="the account the transaction leads to")
    parser.add_argument("--artifacts", required=True, help="where to save screenshots")
    args = parser.parse_args()

    driver, wait = chromium(height=1200)

    def shot(name):
        path = os.path.join(args.artifacts, name)
        driver.save_screenshot(path)
        print("screenshot:", path)

    def sign_in(credentials):
        return log_in(driver, wait, args.url, credentials)

    try:
        adjuster = sign_in(args.adjuster)

        # Find the account by a transaction id: the search opens its page.
        driver.find_element(By.LINK_TEXT, "Accounts").click()
        wait.until(EC.presence_of_element_located((By.ID, "account-q"))).send_keys(args.transaction)
        driver.find_element(By.ID, "find-account").click()
        wait.until(EC.presence_of_element_located((By.ID, "timeline")))
        check(driver.current_url.endswith("/console/accounts/" + args.account), "landed on " + driver.current_url)

        # Its timeline, in order: the receipt before its credit.
        rows = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "#timeline tbody tr")]
        received = next((i for i, text in enumerate(rows) if "receipt received" in text), None)
        credited = next((i for i, text in enumerate(rows) if "purchase +100 coins" in text), None)
        check(received is not None and credited is not None and received < credited, "timeline: %r" % rows)
        shot("console-account.png")

        # Grant 100 coins with a reason.
        driver.find_element(By.ID, "amount").send_keys("100")
        driver.find_element(By.ID, "reason").send_keys("goodwill: order lost in the outage")
        driver.find_element(By.ID, "grant").click()
        notice = wait.until(EC.presence_of_element_located((By.ID, "notice")))
        print("notice:", notice.text)
        check("recorded" in notice.text, "notice: " + notice.text)

        # The balance, the ledger entry with the operator's name, the webhook.
        balance = driver.find_element(By.CSS_SELECTOR, '#balances [data-currency="coins"] b').text
        check(balance == "200", "balance shows " + balance)
        entries = [row.text for row in driver.find_elements(By.CSS_SELECTOR, '#timeline tr[data-kind="adjustment"]')]
        check(any(adjuster + " granted +100 coins" in text and "order lost" in text for text in entries),
              "adjustments: %r" % entries)
        hooks = driver.find_elements(By.CSS_SELECTOR, '#webhooks tr[data-type="account.adjusted"]')
        check(len(hooks) == 1, "account.adjusted webhooks: %d" % len(hooks))
        shot("console-account-granted.png")

        # A read-only operator sees the page but no grant form.
        driver.find_element(By.XPATH, "//nav//button[normalize-space()='Log out']").click()
        sign_in(args.reader)
        driver.get(args.url + "/console/accounts/" + args.account)
        wait.until(EC.presence_of_element_located((By.ID, "read-only")))
        check(not driver.find_elements(By.ID, "grant"), "a read-only operator sees the grant button")
        shot("console-account-read-only.png")
        return 0
    except Exception as error:  # report what failed and keep a screenshot of where
        failed = os.path.join(args.artifacts, "console-account-failure.png")
        driver.save_screenshot(failed)
        print("failed: %r (page %s, screenshot %s)" % (error, driver.current_url, failed), file=sys.stderr)
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())

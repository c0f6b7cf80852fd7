#!/usr/bin/python3
"""Replays a dead letter through the iap console in a real headless Chromium.

Run by Tests/ConsoleEndToEndTests/ConsoleTests.swift with Debian's python3, chromium, chromium-driver
and python3-selenium: logs in, opens the overview and the dead-letter list, clicks Replay
on the letter of the given receipt, accepts the confirmation, waits for the notice, and
saves screenshots. Exits non-zero (with the reason on stderr) if any step fails.
"""
import argparse
import os
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True, help="the intake, e.g. http://127.0.0.1:8080")
    parser.add_argument("--operator", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--receipt", required=True, help="the receipt whose dead letter to replay")
    parser.add_argument("--screenshot", required=True, help="where to save the screenshot after the replay")
    args = parser.parse_args()

    options = Options()
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")  # CI runs as root
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--window-size=1280,900")
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    wait = WebDriverWait(driver, 20)
    try:
        # Not logged in: a browser is sent to the login page (303).
        driver.get(args.url + "/console")
        wait.until(EC.url_contains("/console/login"))
        wait.until(EC.presence_of_element_located((By.ID, "name"))).send_keys(args.operator)
        driver.find_element(By.ID, "secret").send_keys(args.secret)
        driver.find_element(By.ID, "login").click()

        # The overview groups the dead letters by reason.
        wait.until(EC.presence_of_element_located((By.ID, "groups")))
        overview = os.path.join(os.path.dirname(args.screenshot), "console-overview.png")
        driver.save_screenshot(overview)
        print("overview screenshot:", overview)

        # The dead-letter list: the receipt's row, its Replay button, the confirmation.
        driver.get(args.url + "/console/dead")
        row = wait.until(
            EC.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-receipt="%s"]' % args.receipt)))
        listing = os.path.join(os.path.dirname(args.screenshot), "console-dead-letters.png")
        driver.save_screenshot(listing)
        print("dead letters screenshot:", listing)
        row.find_element(By.XPATH, ".//button[normalize-space()='Replay']").click()
        wait.until(EC.alert_is_present()).accept()

        notice = wait.until(EC.presence_of_element_located((By.ID, "notice")))
        print("notice:", notice.text)
        if "Replayed" not in notice.text or args.receipt not in notice.text:
            print("unexpected notice: " + notice.text, file=sys.stderr)
            return 1
        driver.save_screenshot(args.screenshot)
        print("screenshot:", args.screenshot)
        return 0
    except Exception as error:  # report what failed and keep a screenshot of where
        failed = os.path.join(os.path.dirname(args.screenshot), "console-failure.png")
        driver.save_screenshot(failed)
        print("failed: %r (page %s, screenshot %s)" % (error, driver.current_url, failed), file=sys.stderr)
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())

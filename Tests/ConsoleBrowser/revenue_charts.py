#!/usr/bin/python3
"""Reads the console's revenue page in a real headless Chromium, and its CSV with Python's csv.

Run by Tests/ConsoleEndToEndTests/ConsoleRevenueTests.swift with Debian's python3, chromium,
chromium-driver and python3-selenium, over a database of generated history: a read-only
operator logs in, opens the revenue page for the last 12 months, sees the charts drawn
(bars in each SVG) with their tables, reads the totals of one currency, downloads the CSV in
the same session and sums it with the csv module to the same totals, then switches to the
last 30 days and to another currency. Prints how long each page took in the browser
(Navigation Timing). Saves screenshots; exits non-zero (with the reason on stderr) if any
step fails.
"""
import argparse
import csv
import io
import os
import sys
import urllib.request

from console_browser import Failed, check, chromium, log_in
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True, help="the intake, e.g. http://127.0.0.1:8080")
    parser.add_argument("--reader", required=True, help="name:secret of a read-only operator")
    parser.add_argument("--currency", required=True, help="the currency whose totals are checked")
    parser.add_argument("--gross", required=True, type=int, help="its gross over the 12 months, minor units")
    parser.add_argument("--payments", required=True, type=int, help="its payments over the 12 months")
    parser.add_argument("--artifacts", required=True, help="where to save screenshots")
    args = parser.parse_args()

    driver, wait = chromium(height=2400)

    def shot(name):
        path = os.path.join(args.artifacts, name)
        driver.save_screenshot(path)
        print("screenshot:", path)

    def page_time(label):
        # From the request's start to the response's end, as the browser measured it.
        timing = driver.execute_script(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return [n.responseEnd - n.requestStart, n.transferSize];")
        print("page %s: %.1f ms, %d bytes" % (label, timing[0], timing[1]))

    try:
        log_in(driver, wait, args.url, args.reader)

        # The revenue page, reached from the menu, then its 12 months.
        driver.find_element(By.LINK_TEXT, "Revenue").click()
        wait.until(EC.presence_of_element_located((By.ID, "revenue-totals")))
        page_time("30d")
        driver.find_element(By.LINK_TEXT, "last 12 months").click()
        wait.until(EC.url_contains("window=12m"))
        page_time("12m")
        Select(driver.find_element(By.ID, "currency")).select_by_visible_text(args.currency)
        driver.find_element(By.CSS_SELECTOR, "form.filters button").click()
        wait.until(EC.url_contains("currency=" + args.currency))
        page_time("12m " + args.currency)

        # Charts drawn: bars in each, and a legend naming the stores.
        for chart in ["chart-revenue-stores", "chart-revenue-refunds"]:
            bars = driver.find_elements(By.CSS_SELECTOR, "#%s svg rect" % chart)
            check(len(bars) >= 12, "%s: %d bars" % (chart, len(bars)))
            size = driver.find_element(By.CSS_SELECTOR, "#%s svg" % chart).size
            check(size["width"] > 300 and size["height"] > 80, "%s drawn at %r" % (chart, size))
        # The subscriptions' movements: started, free trials and renewed, counted per month.
        bars = driver.find_elements(By.CSS_SELECTOR, "#chart-subscriptions svg rect")
        check(len(bars) >= 12, "subscriptions chart: %d bars" % len(bars))
        # Subscribers and recurring revenue over time: at the end of each month, in a table too.
        for chart in ["chart-subscribers", "chart-mrr"]:
            bars = driver.find_elements(By.CSS_SELECTOR, "#%s svg rect" % chart)
            check(len(bars) >= 12, "%s: %d bars" % (chart, len(bars)))
        months = [
            r for r in driver.find_elements(By.CSS_SELECTOR, "#subscriptions-over-time tr")
            if r.find_elements(By.TAG_NAME, "td")
        ]
        check(len(months) == 12, "subscriptions over time: %d rows" % len(months))
        latest = [cell.text for cell in months[0].find_elements(By.TAG_NAME, "td")]
        check(int(latest[1].replace(",", "")) > 0, "active subscriptions at the end: %r" % latest)
        window = driver.find_element(By.ID, "subscriptions-window").text
        check("trial conversion" in window, "subscriptions' window: " + window)
        legend = driver.find_element(By.CSS_SELECTOR, "#chart-revenue-stores .legend").text
        check("apple" in legend and "google" in legend, "legend: " + legend)
        shot("console-revenue-12m.png")

        # The currency's totals on the page: payments and gross as the ledger has them.
        row = driver.find_element(By.CSS_SELECTOR, '#revenue-totals tr[data-currency="%s"]' % args.currency)
        cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
        print("totals:", cells)
        check(int(cells[1]) == args.payments, "payments %s, not %d" % (cells[1], args.payments))
        shown_gross = cells[6]
        periods = driver.find_elements(By.CSS_SELECTOR, "#revenue-periods tr")
        check(len(periods) > 12, "the periods' table has %d rows" % len(periods))

        # The CSV the page links to, downloaded with the browser's session (the console's pages
        # run no script that fetches), summed by the csv module.
        link = driver.find_element(By.ID, "revenue-csv").get_attribute("href")
        check("window=12m" in link and "currency=" + args.currency in link, "CSV link: " + link)
        cookie = "; ".join("%s=%s" % (c["name"], c["value"]) for c in driver.get_cookies())
        with urllib.request.urlopen(urllib.request.Request(link, headers={"Cookie": cookie})) as answer:
            check(answer.headers["Content-Type"] == "text/csv; charset=utf-8", "CSV type")
            check("attachment" in answer.headers["Content-Disposition"], "CSV disposition")
            text = answer.read().decode("utf-8")
        rows = list(csv.DictReader(io.StringIO(text)))
        check(rows and set(r["currency"] for r in rows) == {args.currency}, "CSV currencies")
        gross = sum(int(r["gross"]) for r in rows)
        paid = sum(int(r["paid"]) for r in rows)
        given = sum(int(r["given_back"]) for r in rows)
        payments = sum(int(r["payments"]) for r in rows)
        print("csv: %d rows, gross %d, paid %d, given back %d, payments %d" % (len(rows), gross, paid, given, payments))
        check(gross == args.gross and gross == paid + given, "CSV gross %d, ledger %d" % (gross, args.gross))
        check(payments == args.payments, "CSV payments %d, ledger %d" % (payments, args.payments))
        digits = int(rows[0]["minor_unit_digits"])
        whole = "{:,}".format(abs(gross) // 10 ** digits)
        check(shown_gross.startswith(("-" if gross < 0 else "") + whole), "page gross %s, CSV %d" % (shown_gross, gross))

        # The last 30 days: fewer bars, the same page.
        driver.find_element(By.LINK_TEXT, "last 30 days").click()
        wait.until(EC.url_contains("window=30d"))
        page_time("30d " + args.currency)
        bars = driver.find_elements(By.CSS_SELECTOR, "#chart-revenue-stores svg rect")
        check(0 < len(bars) <= 30 * 6, "30 days: %d bars" % len(bars))
        shot("console-revenue-30d.png")
        print("revenue page: ok")
        return 0
    except Failed as failure:
        shot("console-revenue-failed.png")
        print("revenue page: " + str(failure), file=sys.stderr)
        return 1
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())

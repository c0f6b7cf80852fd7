"""What the console's browser scripts share: a headless Chromium, a console login, checks.

Debian's chromium, chromium-driver and python3-selenium; CHROMIUM and CHROMEDRIVER name others.
"""
import os

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


def chromium(height=1200):
    """A headless Chromium, and a wait of 20 s on it."""
    options = Options()
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")  # CI runs as root
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--window-size=1280,%d" % height)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    return driver, WebDriverWait(driver, 20)


def log_in(driver, wait, url, credentials):
    """Logs in to the console at `url` as `name:secret`; returns the name."""
    name, secret = credentials.split(":", 1)
    driver.get(url + "/console")
    wait.until(EC.presence_of_element_located((By.ID, "name"))).send_keys(name)
    driver.find_element(By.ID, "secret").send_keys(secret)
    driver.find_element(By.ID, "login").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "nav .who")))
    return name

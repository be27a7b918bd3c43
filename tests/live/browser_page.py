"""What the browser tests of `hashtrace live` share: a free port, a
condition waited for, the page's rows read from the DOM, and Debian's
chromium driven headless over WebDriver (chromedriver, python3-selenium)."""
import socket
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, seconds):
    """Calls check() until it returns (True, seen); says what was last seen if it never does."""
    deadline = time.time() + seconds
    seen = None
    while time.time() < deadline:
        ok, seen = check()
        if ok:
            return seen
        time.sleep(0.2)
    raise AssertionError(f"{what}: not seen within {seconds} s; last seen {seen}")


# A row's cells by class, read in one script: the page rebuilds its tables at every update.
READ_ROW = """const row = document.querySelector(arguments[0]);
if (!row) return null;
const cells = {};
for (const td of row.cells) cells[td.className] = td.textContent;
return cells;"""


def row_cells(driver, table, attribute, key):
    return driver.execute_script(READ_ROW, f'#{table} tr[data-{attribute}="{key}"]')


def chromium():
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

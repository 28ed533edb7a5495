#!/usr/bin/env python3
"""Regenerate docs/explore_micrograd.png: mt.viz.explore's page of micrograd's example, at step 2 of 3.

Writes the page of L = (a*b + c) * f (docs/tutorial.md, section 2), opens it in
headless Chromium with Selenium, presses Step twice and saves a screenshot.
Needs the test extra (selenium) and a system Chromium with its driver
(Debian: apt-get install chromium chromium-driver). The browser tests
(tests/test_explore_browser.py) start Chromium with start_chromium() below.

    python scripts/make_explore_screenshot.py [--out docs/explore_micrograd.png]
"""
import argparse
import shutil
import tempfile
from pathlib import Path

# Root in a container needs --no-sandbox; the rest keeps Chromium from reaching out on its own.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
         "--no-first-run", "--hide-scrollbars")


def find_chromium():
    """(browser, driver) paths, or None where either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


def start_chromium(webdriver, browser, driver, profile, size=(1400, 1000), logs=False):
    """A headless Chromium driven by Selenium (`webdriver`, the selenium.webdriver module), with a fresh profile."""
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS + (f"--window-size={size[0]},{size[1]}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    if logs:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(service=webdriver.ChromeService(driver), options=options)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "explore_micrograd.png"))
    args = parser.parse_args()
    from selenium import webdriver  # here, not at the top: --help works without selenium

    import minitorch as mt

    found = find_chromium()
    if found is None:
        raise SystemExit("make_explore_screenshot.py: no Chromium with its driver (apt-get install chromium chromium-driver)")
    a, b = mt.tensor(2.0, requires_grad=True), mt.tensor(-3.0, requires_grad=True)
    c, f = mt.tensor(10.0, requires_grad=True), mt.tensor(-2.0, requires_grad=True)
    e = a * b
    d = e + c
    L = d * f
    work = Path(tempfile.mkdtemp(prefix="minitorch-explore-"))
    page = mt.viz.explore(L, work / "backprop.html", names=dict(a=a, b=b, c=c, f=f, e=e, d=d, L=L))
    driver = start_chromium(webdriver, *found, work / "profile", size=(1100, 900))
    try:
        driver.get(Path(page).resolve().as_uri())
        for _ in range(2):
            driver.find_element("id", "step").click()
        driver.save_screenshot(args.out)
    finally:
        driver.quit()
        shutil.rmtree(work, ignore_errors=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

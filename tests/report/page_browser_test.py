#!/usr/bin/python3
"""The report's uPlot charts in a real browser (Debian's chromium and
chromedriver over WebDriver): a known run (generate_long_run's seeded
pipeline) analysed with --html and --json, the page opened from disk, and
its charts read from the DOM and from uPlot itself:

- no console message and no uncaught error, the page's script finished;
- per interval of the spec, a histogram and a latency-over-time chart: their
  series, and point counts that add up to what `analyze --json` counted;
- hover shows a bar's count in the legend, a drag zooms in, a double click
  shows the whole chart again.

usage: page_browser_test.py HASHTRACE GENERATE_LONG_RUN
"""
import json
import os
import subprocess
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

HASHTRACE, GENERATE = sys.argv[1], sys.argv[2]
DOTS_AT_MOST = 3000  # docs/report.md: at most 3000 observations an interval as dots
BINS_AT_MOST = 120   # and 120 time bins

# What each uPlot chart holds: its interval, kind, series labels, and each column's non-null values.
READ_CHARTS = """return window.hashtraceReport.charts.map(c => ({
  interval: c.interval, kind: c.kind,
  labels: c.chart.series.map(s => s.label),
  points: c.chart.data[0].length,
  columns: c.chart.data.map(col => col.filter(v => v !== null && v !== undefined)),
  root: c.chart.root.isConnected }));"""
SCALE = "const c = window.hashtraceReport.charts[arguments[0]].chart; return [c.scales.x.min, c.scales.x.max];"
VAL_TO_POS = "const c = window.hashtraceReport.charts[arguments[0]].chart; return c.valToPos(arguments[1], 'x');"


def analyse(work):
    run = os.path.join(work, "run")
    subprocess.run([GENERATE, run, "--samples", "20000", "--rate", "10000", "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
    page, analysis = os.path.join(work, "report.html"), os.path.join(work, "analysis.json")
    subprocess.run([HASHTRACE, "analyze", run, "--spec", os.path.join(run, "spec.toml"), "--quiet", "--html", page, "--json", analysis],
                   check=True, stdout=subprocess.DEVNULL)
    with open(analysis) as f:
        return page, json.load(f)


def open_page(page):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,3000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.get("file://" + page)
    return driver


def check_counts(charts, intervals):
    observed = {i["name"]: i["count"] for i in intervals if i["count"] > 0}
    by = {(c["interval"], c["kind"]): c for c in charts}
    assert len(charts) == 2 * len(observed), (len(charts), sorted(observed))
    for name, count in observed.items():
        hist, over = by[(name, "histogram")], by[(name, "over-time")]
        assert hist["root"] and over["root"], name
        # Every observation is in a bar: the bins' counts and the overflow add up to analyze's count.
        assert hist["labels"][:2] == ["latency (ms)", "count"], hist["labels"]
        assert sum(sum(col) for col in hist["columns"][1:]) == count, (name, count)
        assert hist["points"] == len(hist["columns"][1]) + (len(hist["columns"]) > 2), name
        # Over time: the sampled observations as dots (those over the axis, if any, in a series of their own) and per bin p50/p95/p99.
        labels = over["labels"]
        assert labels[1] == "observation (ms)" and labels[-3:] == ["p50 (ms)", "p95 (ms)", "p99 (ms)"], labels
        assert len(labels) == 5 or (len(labels) == 6 and labels[2].startswith("over ")), labels
        dots = sum(len(over["columns"][i]) for i in range(1, len(labels) - 3))
        assert dots == min(count, DOTS_AT_MOST), (name, dots, count)
        bins = {len(col) for col in over["columns"][-3:]}
        assert len(bins) == 1 and 0 < next(iter(bins)) <= BINS_AT_MOST, name
        assert over["points"] == len(over["columns"][0]) >= dots, name
        print(f"{name}: {count} observations; histogram {len(hist['columns'][1])} bins, over time {dots} dots, "
              f"{len(over['columns'][-1])} bins")


def legend_value(driver, root, label):
    for row in root.find_elements(By.CSS_SELECTOR, ".u-legend tr.u-series"):
        if row.find_element(By.CSS_SELECTOR, ".u-label").text == label:
            return row.find_element(By.CSS_SELECTOR, ".u-value").text
    raise AssertionError(f"no legend row {label}")


def check_hover_and_zoom(driver, charts):
    roots = driver.find_elements(By.CSS_SELECTOR, "#intervals-chart .uplot")
    assert len(roots) == len(charts), (len(roots), len(charts))
    # Hover over the histogram's tallest bar: the legend shows its count.
    h = next(i for i, c in enumerate(charts) if c["kind"] == "histogram")
    counts = charts[h]["columns"][1]
    tallest = max(range(len(counts)), key=counts.__getitem__)
    over = roots[h].find_element(By.CSS_SELECTOR, ".u-over")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", roots[h])
    x = driver.execute_script(VAL_TO_POS, h, charts[h]["columns"][0][tallest])
    ActionChains(driver).move_to_element_with_offset(over, int(x - over.size["width"] / 2), 0).perform()
    shown = legend_value(driver, roots[h], "count").replace(",", "")
    assert shown == str(counts[tallest]), (shown, counts[tallest])
    print(f"hover: the tallest bar's count {shown} in the legend")
    # Drag across the middle half of the latency-over-time chart: it zooms to that span.
    t = h + 1
    assert charts[t]["kind"] == "over-time"
    over = roots[t].find_element(By.CSS_SELECTOR, ".u-over")
    whole = driver.execute_script(SCALE, t)
    w = over.size["width"]
    ActionChains(driver).move_to_element_with_offset(over, int(-w / 4), 0).click_and_hold().move_by_offset(int(w / 2), 0).release().perform()
    zoomed = driver.execute_script(SCALE, t)
    span = whole[1] - whole[0]
    assert abs(zoomed[0] - (whole[0] + span / 4)) < 0.05 * span and abs(zoomed[1] - (whole[1] - span / 4)) < 0.05 * span, (whole, zoomed)
    ActionChains(driver).double_click(over).perform()
    again = driver.execute_script(SCALE, t)
    assert again == whole, (again, whole)
    print(f"zoom: {whole} -> {zoomed} -> double click {again}")


def main():
    work = tempfile.mkdtemp(prefix="report-browser-")
    page, analysis = analyse(work)
    print(f"page: {os.path.getsize(page)} bytes")
    driver = open_page(page)
    try:
        assert driver.execute_script("return document.body.dataset.ready;") == "true", "the page's script did not finish"
        charts = driver.execute_script(READ_CHARTS)
        check_counts(charts, analysis["intervals"])
        check_hover_and_zoom(driver, charts)
        log = driver.get_log("browser")
        assert not log, "console messages or errors: " + json.dumps(log)
        print("ok")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The web console in a real browser (issue 14): headless Chromium driven by Selenium against `healthbridge serve --demo`
on loopback, at the console's own loopback address (issue 21: its session cookie is sent to no server on 127.0.0.1).

Logs in with the one-time link serve prints, approves an access request an app filed, revokes a paired device (its
next request fails), moves a source up and sees the Data page's merged step total and `healthbridge summary` change
alike, pairs a code and shows its QR, filters the audit log, uploads a small export and watches the progress reach
100 %, and checks that no request left loopback and that no page logged a console error. Screenshots of every page go
to the directory given (git-ignored).

    python3 IntegrationTests/console_browser_test.py .build/debug/healthbridge console-screenshots
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hbapi  # noqa: E402

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/healthbridge")
SHOTS = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "console-screenshots")
CHECKS = []


def check(condition, what):
    CHECKS.append((bool(condition), what))
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        raise AssertionError(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli(home, *args, check_exit=True):
    result = subprocess.run([BINARY, *args, "--home", home], capture_output=True, text=True)
    if check_exit and result.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(args), result.stderr))
    return result


def cli_steps_total(home, *person):
    out = json.loads(cli(home, "summary", "--type", "stepCount", "--from", "30d", "--interval", "total",
                         "--statistics", "sum", "--json", *person).stdout)
    return round(out["buckets"][0]["sum"])


def pedometer_export(path, days=30):
    """A small export.zip: a step-counting app (a third source) recording every 10 minutes of the last `days` days,
    overlapping the demo's iPhone and Apple Watch, with values of its own, so the priority order changes the merge."""
    import datetime as dt
    import zipfile
    now = dt.datetime.now(dt.timezone.utc).replace(minute=0, second=0, microsecond=0)
    fmt = lambda t: t.strftime("%Y-%m-%d %H:%M:%S +0000")
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<HealthData locale="en_US">',
             ' <ExportDate value="%s"/>' % fmt(now)]
    start = now - dt.timedelta(days=days)
    t = start
    while t < now - dt.timedelta(hours=1):
        if 7 <= t.hour < 21:
            end = t + dt.timedelta(minutes=10)
            lines.append(' <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Pocket Pedometer" '
                         'sourceVersion="2.1" unit="count" creationDate="%s" startDate="%s" endDate="%s" value="%d"/>'
                         % (fmt(end), fmt(t), fmt(end), 60 + (t.minute * 7 + t.hour * 13) % 100))
        t += dt.timedelta(minutes=10)
    lines.append("</HealthData>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("apple_health_export/export.xml", "\n".join(lines) + "\n")


def page_number(driver, element_id):
    return int(driver.find_element(By.ID, element_id).text.replace(",", ""))


def main():
    os.makedirs(SHOTS, exist_ok=True)
    home = tempfile.mkdtemp(prefix="hb-console-")
    client_home = tempfile.mkdtemp(prefix="hb-console-client-")
    mcp_port, api_port = free_port(), free_port()
    server = hbapi.Server(BINARY, home, ["--demo", "--mcp-port", str(mcp_port), "--api-port", str(api_port),
                                         "--api-bind", "127.0.0.1", "--no-advertise"])
    driver = None
    try:
        login = None
        deadline = time.time() + 60
        while login is None and time.time() < deadline:
            with open(server.log.name, errors="replace") as handle:
                found = re.search(r"HealthBridge console: (http://\S+)", handle.read())
            login = found.group(1) if found else None
            time.sleep(0.2)
        # The console has a loopback address of its own (cookies are not port-scoped: on 127.0.0.1 its session cookie
        # would go to every other local web server), kept in the data directory, on the MCP port's number.
        with open(os.path.join(home, "console-address")) as handle:
            address = handle.read().strip()
        check(re.fullmatch(r"127\.\d+\.\d+\.\d+", address) and not address.startswith("127.0."),
              "the console has a loopback address of its own (%s)" % address)
        console = "http://%s:%d" % (address, mcp_port)
        check(login and login.startswith(console + "/login?key="), "serve prints a one-time login link on that address")

        # An app asks for access; a device pairs and reads.
        cli(home, "access", "request", "app:com.example.diet", "--read", "bodyMass,stepCount",
            "--write", "dietaryEnergyConsumed", "--reason", "bodyMass=Shows your weight trend next to what you eat",
            "--reason", "dietaryEnergyConsumed=Saves the meals you log")
        cli(home, "sharing", "types", "--enable", "stepCount")
        device = hbapi.PinnedClient("127.0.0.1", server.info["port"], server.info["fingerprint"])
        paired = device.pair(server.pair_code(), "Browser-test phone")
        status, _, _ = device.request("GET", "/api/v1/health/types")
        check(status == 200, "the paired device reads before it is revoked")

        # A second person of the household, who shares their steps (not their sleep) with the owner.
        cli(home, "people", "add", "Alex Martin")
        cli(home, "demo", "--person", "alex-martin", "--days", "40", "--seed", "7")
        cli(home, "people", "share", "owner", "--read", "stepCount", "--person", "alex-martin")

        options = webdriver.ChromeOptions()
        options.add_argument("--headless=new")
        options.add_argument("--no-sandbox")
        options.add_argument("--disable-dev-shm-usage")
        options.add_argument("--disable-gpu")
        options.add_argument("--window-size=1280,1000")
        # Nothing may leave loopback: every other name fails to resolve, and every request is logged and checked.
        options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost, EXCLUDE %s" % address)
        options.add_argument("--no-first-run")
        options.add_argument("--disable-background-networking")
        options.add_argument("--disable-component-update")
        options.add_argument("--disable-sync")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        chromium = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None)
        if chromium:
            options.binary_location = chromium
        service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver") if os.path.exists("/usr/bin/chromedriver") else None
        driver = webdriver.Chrome(options=options, service=service) if service else webdriver.Chrome(options=options)
        wait = WebDriverWait(driver, 30)
        errors = []

        def console_errors(where):
            for entry in driver.get_log("browser"):
                if entry.get("level") == "SEVERE":
                    errors.append((where, entry.get("message")))

        def submit(button):
            """Clicks a button that submits a form, and waits for the next page. (Recent chromedrivers report an element
            of the page just left as "does not belong to the document" rather than stale: both mean it is gone.)"""
            old = driver.find_element(By.TAG_NAME, "html")
            button.click()

            def gone(_):
                try:
                    old.is_enabled()
                    return False
                except StaleElementReferenceException:
                    return True
                except WebDriverException as error:
                    if "does not belong to the document" in str(error):
                        return True
                    raise
            wait.until(gone)

        def shot(name):
            """The whole page (the window grown to its height, then back)."""
            size = driver.get_window_size()
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(size["width"], min(max(height + 140, size["height"]), 5000))
            driver.save_screenshot(os.path.join(SHOTS, name + ".png"))
            driver.set_window_size(size["width"], size["height"])
            console_errors(name)

        # Log in with the one-time link; the link is spent.
        driver.get(login)
        wait.until(EC.presence_of_element_located((By.TAG_NAME, "h1")))
        check(driver.find_element(By.TAG_NAME, "h1").text == "Overview", "the one-time link signs in (Overview)")
        cookies = driver.get_cookies()
        check(any(c["name"] == "hb_console" and c["httpOnly"] and c.get("sameSite") == "Strict" for c in cookies),
              "the session cookie is HttpOnly and SameSite=Strict")
        session = next(c for c in cookies if c["name"] == "hb_console")
        check(session.get("domain") == address, "the session cookie belongs to the console's address only (%s)" % session.get("domain"))
        # Another web server on 127.0.0.1 (here the MCP listener) receives no cookie: the browser does not send it there.
        sent = driver.execute_cdp_cmd("Network.getCookies", {"urls": ["http://127.0.0.1:%d/" % mcp_port]})["cookies"]
        check(not any(c["name"] == "hb_console" for c in sent), "the browser sends the session cookie to no server on 127.0.0.1")
        carried = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: 127.0.0.1:%d" % mcp_port,
                                  "-H", "Cookie: hb_console=%s" % session["value"], console + "/"],
                                 capture_output=True, text=True).stdout
        check(carried == "403", "the cookie carried to the console under another Host is refused (%s)" % carried)
        moved = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{redirect_url}",
                                "http://127.0.0.1:%d/" % mcp_port], capture_output=True, text=True).stdout
        check(moved == "303 %s/" % console, "127.0.0.1:%d/ points to the console's address, setting no cookie (%s)" % (mcp_port, moved))
        check("127.0.0.1:%d/mcp" % mcp_port in driver.page_source, "the overview lists the interfaces running")
        shot("01-overview")
        replay = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", login], capture_output=True, text=True).stdout
        check(replay == "401", "the login link does not work twice")
        fresh = cli(home, "console").stdout.strip()
        check(fresh.startswith(console + "/login?key="), "`healthbridge console` prints a fresh link while serve runs")

        # Import: a small export, streamed up, progress to 100 %, then the report.
        export = os.path.join(home, "small-export.zip")
        pedometer_export(export)
        driver.get(console + "/import")
        driver.find_element(By.ID, "import-file").send_keys(export)
        driver.find_element(By.ID, "import-start").click()
        seen = set()
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                seen.add(driver.find_element(By.ID, "import-percent").text)
                if driver.find_elements(By.ID, "import-report"):
                    break
            except Exception:
                pass
            time.sleep(0.05)
        check("100.0 %" in seen, "the progress bar reached 100 %% (seen: %s)" % sorted(seen)[:8])
        report = wait.until(EC.presence_of_element_located((By.ID, "import-report"))).text
        check("Samples added" in report, "the import's report is shown")
        check(cli(home, "sources", "--type", "stepCount").stdout.count("Pocket Pedometer") == 1, "the imported source is in the store")
        shot("09-import-report")
        uploads = os.path.join(home, "console-uploads")
        check(not os.path.exists(uploads) or not os.listdir(uploads), "the upload was removed after the import")

        # Data: the merged step total is the CLI's.
        driver.get(console + "/data")
        wait.until(EC.presence_of_element_located((By.ID, "steps-merged-total")))
        before_page = page_number(driver, "steps-merged-total")
        before_cli = cli_steps_total(home)
        check(before_page == before_cli, "the Data page and `healthbridge summary` agree (%d steps)" % before_cli)
        titles = driver.find_elements(By.CSS_SELECTOR, "#steps svg rect title")
        check(len(titles) >= 28, "each day's bar carries its number (%d titles)" % len(titles))
        shot("02-data")

        # Sources: move the second source of stepCount up.
        driver.get(console + "/sources")
        section = wait.until(EC.presence_of_element_located((By.ID, "type-stepCount")))
        names = [e.text for e in section.find_elements(By.CSS_SELECTOR, "ol.priority .source")]
        check(len(names) == 3 and names[-1] == "Pocket Pedometer", "steps have three sources, the app last: %s" % names)
        for _ in range(2):
            submit(section.find_element(By.CSS_SELECTOR, "button[aria-label='Move Pocket Pedometer up']"))
            section = wait.until(EC.presence_of_element_located((By.ID, "type-stepCount")))
        now = [e.text for e in section.find_elements(By.CSS_SELECTOR, "ol.priority .source")]
        check(now[0] == "Pocket Pedometer", "the app moved to the top with the keyboard-reachable buttons (%s)" % now)
        shot("03-sources")
        driver.get(console + "/data")
        after_page = page_number(driver, "steps-merged-total")
        after_cli = cli_steps_total(home)
        check(after_page != before_page, "the chart's total changed with the priority (%d → %d)" % (before_page, after_page))
        check(after_page == after_cli, "…and `healthbridge summary` shows the same new total")

        # Access: approve the app's request; revoke the paired device.
        driver.get(console + "/access")
        wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "article.request")))
        check("Shows your weight trend" in driver.page_source, "the request shows the app's reasons")
        shot("04-access-pending")
        submit(driver.find_element(By.CSS_SELECTOR, "button[aria-label='Approve the request of app:com.example.diet']"))
        wait.until(EC.presence_of_element_located((By.ID, "no-pending")))
        listed = json.loads(cli(home, "access", "--json").stdout)
        check(listed["requests"][0]["status"] == "approved", "the request is approved (healthbridge access agrees)")
        submit(driver.find_element(By.CSS_SELECTOR, "button[aria-label='Revoke Browser-test phone']"))
        wait.until(EC.presence_of_element_located((By.ID, "devices")))
        check("revoked" in driver.find_element(By.ID, "devices").text, "the device shows as revoked")
        device.close()
        status, _, _ = device.request("GET", "/api/v1/health/types")
        check(status == 401, "the revoked device's next request fails (%d)" % status)
        shot("05-access-decided")

        # Pairing: a code, its QR and expiry, the fingerprint; stop and resume sharing.
        driver.get(console + "/pairing")
        check(server.info["fingerprint"] in driver.find_element(By.ID, "fingerprint").text, "the certificate fingerprint is shown")
        submit(driver.find_element(By.XPATH, "//button[text()='New pairing code']"))
        code = wait.until(EC.presence_of_element_located((By.ID, "pairing-code"))).text
        check(re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code), "a pairing code is shown (%s)" % code)
        check(driver.find_elements(By.CSS_SELECTOR, ".qr svg path"), "with its QR code as SVG")
        shot("06-pairing")
        submit(driver.find_element(By.XPATH, "//button[text()='Stop sharing']"))
        check(wait.until(EC.presence_of_element_located((By.ID, "sharing-state"))).text == "stopped", "sharing stops")
        shot("07-pairing-stopped")
        submit(driver.find_element(By.XPATH, "//button[text()='Share again']"))
        check(wait.until(EC.presence_of_element_located((By.ID, "sharing-state"))).text == "on", "sharing resumes")

        # Audit: the device's requests, then only its pairing, with the filter form.
        driver.get(console + "/audit")
        table = wait.until(EC.presence_of_element_located((By.ID, "audit")))
        check("Browser-test phone" in table.text, "the audit log names the paired device's requests")
        shot("08-audit")
        from selenium.webdriver.support.ui import Select
        Select(driver.find_element(By.NAME, "event")).select_by_value("pair.success")
        submit(driver.find_element(By.XPATH, "//button[text()='Filter']"))
        table = wait.until(EC.presence_of_element_located((By.ID, "audit")))
        rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
        check(rows and all("pair.success" in r.text for r in rows), "the filter keeps only pairings (%d rows)" % len(rows))

        # People: Alex's shared steps are readable, their sleep looks like no data; the owner shares weight back.
        driver.get(console + "/people")
        shared = wait.until(EC.presence_of_element_located((By.ID, "shared-with-me")))
        check("Alex Martin" in shared.text and "stepCount" in shared.text, "the People page lists what Alex shares")
        shot("09-people")
        submit(driver.find_element(By.ID, "view-alex-martin"))
        wait.until(EC.presence_of_element_located((By.ID, "steps-merged-total")))
        alex_page = page_number(driver, "steps-merged-total")
        alex_cli = cli_steps_total(home, "--person", "alex-martin")
        check(alex_page == alex_cli and alex_cli != cli_steps_total(home),
              "Alex's Data page shows Alex's merged steps (%d), not the owner's" % alex_cli)
        check("No sleep recorded in this span." in driver.find_element(By.TAG_NAME, "body").text,
              "Alex's sleep, not shared, looks like no data")
        shot("09-people-alex-data")
        audit = json.loads(cli(home, "audit", "--person", "alex-martin", "--json").stdout)
        check("person:owner" in json.dumps(audit), "the view is in Alex's audit log")
        driver.get(console + "/people")
        driver.find_element(By.CSS_SELECTOR, "#share-form input[value='bodyMass']").click()
        submit(driver.find_element(By.XPATH, "//button[text()='Share']"))
        by_me = wait.until(EC.presence_of_element_located((By.ID, "shared-by-me")))
        check("Alex Martin" in by_me.text and "bodyMass" in by_me.text, "the owner shares weight with Alex from the page")
        shared_cli = json.loads(cli(home, "people", "shared", "--person", "alex-martin", "--json").stdout)
        check([e["person"] for e in shared_cli["sharedWith"]] == ["owner"], "the CLI shows what the owner shares with Alex")

        # Phone width.
        driver.set_window_size(390, 900)
        driver.get(console + "/data")
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        check(wide <= 400, "the Data page fits a phone-width screen (scroll width %d)" % wide)
        shot("10-data-phone")
        driver.get(console + "/access")
        shot("11-access-phone")

        # Nothing left loopback; no console errors.
        hosts = set()
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                url = message["params"]["request"]["url"]
                parsed = urllib.parse.urlparse(url)
                if parsed.scheme in ("http", "https", "ws", "wss"):
                    hosts.add(parsed.hostname)
        check(hosts and hosts <= {"127.0.0.1", "localhost", address}, "no request left loopback (hosts: %s)" % sorted(hosts))
        check(not errors, "no page logged a console error %s" % errors)
    except Exception:
        if driver is not None:
            driver.save_screenshot(os.path.join(SHOTS, "failure.png"))
            print("page at failure: %s\n%s" % (driver.current_url, driver.find_element(By.TAG_NAME, "body").text[:2000]))
        raise
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
    print("console browser test: %d checks passed; screenshots in %s" % (len(CHECKS), SHOTS))


if __name__ == "__main__":
    main()

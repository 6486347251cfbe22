#!/usr/bin/env python3
"""Drives jcap's browser remote in a real browser (Debian's Chromium, through Playwright) for
BrowserRemoteTests.swift, and prints what it saw as one JSON object on standard output. The Swift
test checks the take log and the files; this script checks the page.

    browser_remote.py page URL                 two pages: meters, arming, record, stop, mark, note
                                               (typed while the other page marks the take)
    browser_remote.py watch URL TAKE MARK PNG  a page shows take TAKE marked MARK (set by a key), then
                                               records a take (its screenshot in PNG), paused,
                                               resumed and stopped by holding Stop
    browser_remote.py discard URL TAKE         discard the last take, TAKE: No keeps it, Yes discards it
    browser_remote.py security URL             tokens, origins, paths, garbage on the WebSocket

Any failed expectation exits with status 1 and says which on standard error.
"""
import http.client
import json
import os
import socket
import sys
import time
import traceback
import urllib.parse

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 412, "height": 915}  # a phone in portrait
WAIT_MS = 15000


def fail(message):
    print("browser_remote.py: " + message, file=sys.stderr)
    sys.exit(1)


def launch(playwright):
    # Chromium refuses to run as root with its sandbox.
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)


def open_page(context, url):
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url)
    page.wait_for_function("() => document.querySelectorAll('#tracks .track').length > 0")
    return page


def peak(page, track):
    value = page.locator(f'[data-track="{track}"] .peak').get_attribute("data-peak")
    return float(value) if value not in (None, "") else None


def armed(page, track):
    return "armed" in (page.locator(f'[data-track="{track}"]').get_attribute("class") or "")


def wait_armed(page, track, expected):
    page.wait_for_function(
        "([track, expected]) => document.querySelector(`[data-track=\"${track}\"]`).classList.contains('armed') === expected",
        arg=[track, expected])


def wait_mode(page, mode):
    page.wait_for_function("mode => document.body.dataset.mode === mode", arg=mode)


def ask_and_answer(ask, page, button, outcome, attempts=3):
    """Asks jcap's question (`ask`), answers it on `page` with `button` and waits for `outcome`
    (a function of a timeout in ms); the question's text. jcap's question lasts 2 s
    (ControlCore.confirmationSeconds): on a loaded machine the answer can come after it has gone,
    and then it is asked again, saying so."""
    for attempt in range(1, attempts + 1):
        ask()
        page.wait_for_selector("#question:not([hidden])")
        text = page.locator("#question-text").text_content()
        try:
            page.locator(button).click(timeout=3000)
            outcome(5000)
            return text
        except PlaywrightTimeout:
            if attempt == attempts:
                raise
            page.wait_for_selector("#question", state="hidden")
            print(f"browser_remote.py: note: '{text}' had gone before {button} was taken; asked again",
                  file=sys.stderr)


def state_rate(page, seconds=2.0):
    """State messages a second on the page's WebSocket (the meters' update rate)."""
    count = page.evaluate("""seconds => new Promise(resolve => {
        let n = 0;
        const socket = new WebSocket(`ws://${location.host}/ws`);
        socket.onmessage = (event) => { if (JSON.parse(event.data).type === 'state') n += 1; };
        socket.onopen = () => setTimeout(() => { socket.close(); resolve(n); }, seconds * 1000);
        socket.onerror = () => resolve(-1);
    })""", seconds)
    return count / seconds


def page_scenario(url):
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context(viewport=PHONE, device_scale_factor=2)
        first = open_page(context, url)
        second = open_page(context, url)

        # The meters: the -20 dBFS sine reads -20 (one decimal), the code signal is loud; they move.
        deadline = time.time() + 10
        while time.time() < deadline:
            tone = peak(first, "Tone")
            if tone is not None and abs(tone + 20) <= 0.5:
                break
            time.sleep(0.1)
        seen["tonePeak"] = peak(first, "Tone")
        seen["tonePeakSecondPage"] = peak(second, "Tone")
        seen["kickPeak"] = peak(first, "Kick")
        seen["stateRate"] = state_rate(first)
        seen["session"] = first.locator("#session").text_content()
        seen["nextTake"] = first.locator("#take").text_content()

        # Arming from one page shows on the other.
        first.locator('[data-track="Talk"] .arm').click()
        wait_armed(second, "Talk", True)
        second.locator('[data-track="Snare"] .arm').click()
        wait_armed(first, "Snare", False)
        # Each page is sent the change at its own next update (within 30 ms of the other).
        wait_armed(second, "Snare", False)
        seen["armed"] = {track: armed(second, track) for track in ["Kick", "Snare", "Tone", "Talk"]}

        # Record from one page; both show it, red, with the timer running.
        first.locator("#record").click()
        wait_mode(first, "recording")
        wait_mode(second, "recording")
        seen["recordingTake"] = second.locator("#take").text_content()
        seen["timerBackground"] = first.evaluate("getComputedStyle(document.getElementById('timer')).backgroundColor")
        first.wait_for_function("() => { const [h, m, s] = document.getElementById('timer').textContent.split(':'); return parseFloat(s) >= 2.0 }")
        # A take refuses arming: the refusal is shown.
        second.locator('[data-track="Kick"] .arm').click()
        second.wait_for_function("() => document.getElementById('message').classList.contains('refused')")
        seen["refusal"] = second.locator("#message").text_content()
        # A tap on Stop asks (on every page); Yes on the other page stops.
        seen["question"] = ask_and_answer(
            lambda: second.locator("#stop").click(), first, "#confirm-yes",
            lambda timeout: first.wait_for_function("() => document.body.dataset.mode === 'ready'", timeout=timeout))
        wait_mode(second, "ready")

        # The take list: take 1 on both pages; a mark on one shows on the other; so does a note.
        take = seen["recordingTake"].strip()
        first.wait_for_selector(f'.take[data-take="{take}"]')
        second.wait_for_selector(f'.take[data-take="{take}"]')
        second.locator(f'.take[data-take="{take}"] [data-mark="circled"]').click()
        first.wait_for_selector(f'.take[data-take="{take}"] [data-mark="circled"].on')
        note = first.locator(f'.take[data-take="{take}"] .note')
        note.fill("from the page")
        # The take list changes while the note is typed (the other page marks the take no good):
        # the note keeps its focus and its text, and Enter sends it. Then circled again.
        second.locator(f'.take[data-take="{take}"] [data-mark="no-good"]').click()
        first.wait_for_selector(f'.take[data-take="{take}"] [data-mark="no-good"].on')
        seen["noteKeptFocus"] = first.evaluate("document.activeElement.classList.contains('note')")
        note.press("Enter")
        try:
            second.wait_for_function(
                "take => document.querySelector(`.take[data-take=\"${take}\"] .note`).value === 'from the page'", arg=take)
        except PlaywrightTimeout:
            # What each page holds, to tell a note never sent from one never shown.
            other = second.locator(f'.take[data-take="{take}"] .note')
            fail(f"the note set on one page never showed on the other: the first page's note "
                 f"{note.input_value()!r}, its message {first.locator('#message').text_content()!r}; the "
                 f"second's {other.input_value()!r}, its message {second.locator('#message').text_content()!r}")
        second.locator(f'.take[data-take="{take}"] [data-mark="circled"]').click()
        first.wait_for_selector(f'.take[data-take="{take}"] [data-mark="circled"].on')
        row = first.locator(f'.take[data-take="{take}"]')
        seen["takeRow"] = row.inner_text()
        seen["files"] = [link.text_content() for link in row.locator(".files a").all()]
        # A take file downloads through its link (the take list's, by take and index).
        with first.expect_download() as download:
            row.locator(".files a").first.click()
        seen["downloadBytes"] = os.path.getsize(download.value.path())
        seen["nextTakeAfter"] = first.locator("#take").text_content()
        browser.close()
    return seen


def watch_scenario(url, take, mark, screenshot):
    """The keys' take and mark on the page; then a take from the page, paused and resumed, stopped
    by holding Stop."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = open_page(browser.new_context(viewport=PHONE, device_scale_factor=2), url)
        page.wait_for_selector(f'.take[data-take="{take}"] [data-mark="{mark}"].on')
        seen = {"takeRow": page.locator(f'.take[data-take="{take}"]').inner_text()}
        page.locator("#record").click()
        wait_mode(page, "recording")
        seen["heldTake"] = page.locator("#take").text_content()
        # Paused and resumed from the page: the log keeps the pause.
        page.locator("#pause").click()
        wait_mode(page, "paused")
        seen["pauseLabel"] = page.locator("#pause").text_content()
        page.wait_for_timeout(500)
        page.locator("#pause").click()
        wait_mode(page, "recording")
        page.wait_for_function("() => { const [h, m, s] = document.getElementById('timer').textContent.split(':'); return parseFloat(s) >= 1.5 }")
        # The take recording is in the list too, marked so.
        page.wait_for_selector(f'.take[data-take="{seen["heldTake"]}"]')
        seen["recordingRow"] = page.locator(f'.take[data-take="{seen["heldTake"]}"] .status').text_content()
        # The page as the README shows it: a take recording, the takes before it in the list.
        page.screenshot(path=screenshot, full_page=True)
        # Held for a second, Stop stops without asking; let go sooner, it would only ask.
        page.locator("#stop").hover()
        page.mouse.down()
        page.wait_for_timeout(1300)
        page.mouse.up()
        wait_mode(page, "ready")
        seen["questionShown"] = page.evaluate("() => !document.getElementById('question').hidden")
        page.wait_for_selector(f'.take[data-take="{seen["heldTake"]}"]')
        browser.close()
    return seen


def discard_scenario(url, take):
    """Discard the last take from the page: asked, No keeps it; asked again, Yes discards it."""
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = open_page(browser.new_context(viewport=PHONE), url)
        page.wait_for_selector(f'.take[data-take="{take}"]')
        seen = {}
        def told(text):
            return lambda timeout: page.wait_for_function(
                "text => document.getElementById('message').textContent === text", arg=text, timeout=timeout)
        seen["question"] = ask_and_answer(lambda: page.locator("#discard").click(), page, "#confirm-no",
                                          told(f"Take {take} kept"))
        page.wait_for_selector("#question", state="hidden")
        ask_and_answer(lambda: page.locator("#discard").click(), page, "#confirm-yes", told(f"Take {take} discarded"))
        page.wait_for_selector(f'.take[data-take="{take}"]', state="detached")
        seen["takes"] = [row.get_attribute("data-take") for row in page.locator(".take").all()]
        browser.close()
    return seen


def http_status(base, path, headers=None, method="GET"):
    """The status and body of a request sent as written (no client-side path clean-up)."""
    parsed = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
    connection.putrequest(method, path, skip_accept_encoding=True)
    for name, value in (headers or {}).items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def security_scenario(url):
    parsed = urllib.parse.urlsplit(url)
    base = f"{parsed.scheme}://{parsed.netloc}"
    token = urllib.parse.parse_qs(parsed.query)["token"][0]
    seen = {}
    seen["noToken"] = http_status(base, "/")[0]
    seen["wrongToken"] = http_status(base, "/?token=not-the-token")[0]
    seen["wrongCookie"] = http_status(base, "/remote.js", {"Cookie": "jcap_remote=not-the-token"})[0]
    seen["rightToken"] = http_status(base, f"/?token={token}")[0]
    seen["post"] = http_status(base, f"/?token={token}", method="POST")[0]
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Host": parsed.netloc}
    seen["webSocketNoToken"] = http_status(base, "/ws", dict(upgrade, Origin=base))[0]
    seen["webSocketWrongToken"] = http_status(base, "/ws?token=not-the-token", dict(upgrade, Origin=base))[0]
    seen["webSocketWrongOrigin"] = http_status(base, f"/ws?token={token}", dict(upgrade, Origin="http://evil.example"))[0]
    seen["webSocketNoOrigin"] = http_status(base, f"/ws?token={token}", upgrade)[0]
    seen["webSocketRight"] = http_status(base, f"/ws?token={token}", dict(upgrade, Origin=base))[0]
    traversal = {}
    for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/remote.js/../../../../etc/passwd",
                 "/takes/1/../../../../etc/passwd", "/takes/1/..%2f..%2f..%2fetc%2fpasswd", "/takes/../takes.jsonl",
                 "/takes.jsonl", "/takes/1/-1", "/takes/99/0", "/takes/1/0/../../takes.jsonl", "//etc/passwd",
                 "/Page/index.html", "/" + "a" * 5000]:
        separator = "&" if "?" in path else "?"
        status, body = http_status(base, path + separator + "token=" + token)
        traversal[path[:60]] = {"status": status, "leaks": b"root:" in body or b'"take"' in body}
    seen["traversal"] = traversal

    # A client that completes the handshake and then never reads: it must hold up nothing.
    stalled = socket.create_connection((parsed.hostname, parsed.port), timeout=10)
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    request = f"GET /ws?token={token} HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n" for name, value in
                                                           dict(upgrade, Origin=base).items()) + "\r\n"
    stalled.sendall(request.encode())
    seen["stalledHandshake"] = stalled.recv(12).decode(errors="replace")

    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = browser.new_context(viewport=PHONE)
        page = open_page(context, url)
        # A page of another site, in the same browser (so with the cookie): its WebSocket is refused.
        evil = context.new_page()
        evil.route("http://evil.example/**", lambda route: route.fulfill(status=200, content_type="text/html",
                                                                         body="<html><body>elsewhere</body></html>"))
        evil.goto("http://evil.example/")
        seen["foreignWebSocket"] = evil.evaluate("""url => new Promise(resolve => {
            const socket = new WebSocket(url);
            socket.onopen = () => resolve('opened');
            socket.onerror = () => resolve('refused');
            setTimeout(() => resolve('timeout'), 5000);
        })""", f"ws://{parsed.netloc}/ws?token={token}")
        # Garbage on a WebSocket of the page's own: each refused, none stops the state coming.
        seen["garbage"] = page.evaluate("""() => new Promise(resolve => {
            const socket = new WebSocket(`ws://${location.host}/ws`);
            const told = [];
            let states = 0, refused = 0;
            socket.onmessage = (event) => {
                const message = JSON.parse(event.data);
                if (message.type === 'state') { states += 1; refused = message.refusedMessages; }
                if (message.type === 'events') for (const e of message.events) told.push(e.text);
            };
            socket.onopen = () => {
                socket.send('garbage {{{');
                socket.send(new Uint8Array([0, 1, 2, 255]));
                socket.send('{"command": "explode"}');
                socket.send('{"command": "arm"}');
                socket.send('{"command": "mark", "take": 1, "mark": "gold"}');
                socket.send('{"command": 7}');
                socket.send('[1, 2, 3]');
                socket.send('x'.repeat(20000));
                for (let i = 0; i < 500; i++) socket.send('flood ' + i);
                const before = states;
                setTimeout(() => { resolve({ told, refused, statesAfter: states - before, open: socket.readyState === 1 }); socket.close(); }, 1500);
            };
            socket.onerror = () => resolve({ error: true });
        })""")
        # A message larger than a frame may be: that WebSocket is closed; the others go on.
        seen["oversized"] = page.evaluate("""() => new Promise(resolve => {
            const socket = new WebSocket(`ws://${location.host}/ws`);
            socket.onopen = () => socket.send('y'.repeat(200000));
            socket.onclose = (event) => resolve({ closed: true, code: event.code });
            setTimeout(() => resolve({ closed: false }), 5000);
        })""")
        timer_before = page.locator("#timer").text_content()
        time.sleep(1.0)
        seen["timerBefore"] = timer_before
        seen["timerAfter"] = page.locator("#timer").text_content()
        seen["mode"] = page.evaluate("document.body.dataset.mode")
        seen["link"] = page.locator("#link").text_content()
        browser.close()
    stalled.close()
    return seen


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    command, url = sys.argv[1], sys.argv[2]
    if command == "page":
        seen = page_scenario(url)
    elif command == "watch":
        seen = watch_scenario(url, sys.argv[3], sys.argv[4], sys.argv[5])
    elif command == "discard":
        seen = discard_scenario(url, sys.argv[3])
    elif command == "security":
        seen = security_scenario(url)
    else:
        fail(f"unknown scenario '{command}'")
    print(json.dumps(seen))


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # Named in one line (the last), after the whole traceback.
        traceback.print_exc()
        here = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == __file__]
        where = f"line {here[-1].lineno} ({here[-1].line})" if here else "?"
        first = (str(error).strip().splitlines() or [""])[0]
        fail(f"failed at {where}: {type(error).__name__}: {first}")

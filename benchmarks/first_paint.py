"""(c) First paint of the home page: bytes on the wire and the time to the first card, in headless Chromium.

Each run opens the page in a fresh browser context (an empty cache) on the running app. Chromium's own network
events (over CDP) give each response's bytes on the wire, headers included, as received (compressed when the app
compresses). "Needed for the first card" is the document plus whatever Chromium marks render-blocking (Resource
Timing's renderBlockingStatus): deferred scripts and images outside the card are not needed to draw it.

The first card is drawn at the first contentful paint when the card is already in the DOM by then (the card
comes in the HTML); when it arrives later (built by script), at the frame after it enters the DOM. Both are
measured from navigation start by a script injected before the page loads.
"""

from __future__ import annotations

import http.client
import threading
from pathlib import Path
from urllib.parse import urlsplit

from benchmarks.stats import median

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
# Issue 31 raised the original's 12 KB to 10 KB: the home page draws its first 12 cards and the rest of the page's
# cards arrive when their place scrolls into view (rlx/web/catalog/explore.py, FIRST_CARDS), still one request.
TARGET_BYTES, TARGET_REQUESTS = 10_000, 1
ORIGINAL_FIRST_CARD_MS = 283

_OBSERVER = """
(() => {
  const seen = () => {
    if (window.__rlxCardDom !== undefined || !document.querySelector('.card')) return false;
    window.__rlxCardDom = performance.now();
    requestAnimationFrame(() => setTimeout(() => { window.__rlxCardPaint = performance.now(); }, 0));
    return true;
  };
  new MutationObserver((_, observer) => { if (seen()) observer.disconnect(); })
    .observe(document, {childList: true, subtree: true});
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') window.__rlxFcp = e.startTime;
  }).observe({type: 'paint', buffered: true});
})();
"""


def measure(base_url: str, runs: int) -> dict:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"error": "Playwright is not installed (it is in the dev group: `uv sync`)."}
    if not Path(CHROMIUM).exists():
        return {"error": f"Chromium is not at {CHROMIUM} (Debian: `apt-get install -y chromium`)."}
    samples = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            _warm(base_url)
            _visit(browser, base_url)  # the browser's own first start is not measured either
            samples = [_visit(browser, base_url) for _ in range(runs)]
        finally:
            browser.close()
    last = samples[-1]
    first_bytes = median([s["document_bytes"] for s in samples])
    needed_bytes = median([s["needed_bytes"] for s in samples])
    return {
        "runs": runs,
        "first_card_ms": median([s["card_paint_ms"] for s in samples]),
        "first_card_ms_all": [round(s["card_paint_ms"], 1) for s in samples],
        "card_in_dom_ms": median([s["card_dom_ms"] for s in samples]),
        "fcp_ms": median([s["fcp_ms"] for s in samples if s["fcp_ms"] is not None] or [float("nan")]),
        "document_bytes": first_bytes,
        "needed_bytes": needed_bytes,
        "needed_requests": last["needed"],
        "all_requests": last["all"],
        "document_encoding": last["document_encoding"],
        "document_body_bytes": _uncompressed_size(base_url),
        "met": {"bytes": needed_bytes <= TARGET_BYTES, "requests": len(last["needed"]) <= TARGET_REQUESTS},
    }


def _visit(browser, base_url: str) -> dict:
    context = browser.new_context()
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        requests: dict[str, dict] = {}
        cdp.on("Network.requestWillBeSent", lambda e: requests.setdefault(e["requestId"], {
            "url": e["request"]["url"], "sent": e["timestamp"]}))
        cdp.on("Network.responseReceived", lambda e: requests.get(e["requestId"], {}).update(
            status=e["response"]["status"], encoding=_header(e["response"]["headers"], "content-encoding")))
        cdp.on("Network.loadingFinished", lambda e: requests.get(e["requestId"], {}).update(
            finished=e["timestamp"], bytes=int(e["encodedDataLength"])))
        cdp.send("Network.enable")
        page.add_init_script(_OBSERVER)
        page.goto(base_url + "/", wait_until="load")
        page.wait_for_function("window.__rlxCardPaint !== undefined", timeout=30_000)
        page.wait_for_load_state("networkidle")
        marks = page.evaluate("({dom: window.__rlxCardDom, paint: window.__rlxCardPaint, fcp: window.__rlxFcp, "
                              "blocking: performance.getEntriesByType('resource')"
                              ".filter(e => e.renderBlockingStatus === 'blocking').map(e => e.name)})")
    finally:
        context.close()
    document = next(r for r in requests.values() if r["url"].rstrip("/") == base_url.rstrip("/"))
    origin = document["sent"]  # CDP's clock at navigation start, to place each response against the paint

    def at_ms(r):
        return (r.get("finished", float("inf")) - origin) * 1000

    done = [r for r in requests.values() if "bytes" in r]
    blocking = set(marks["blocking"])
    needed = [r for r in done if r is document or r["url"] in blocking]
    fcp = marks["fcp"]
    painted = fcp if fcp is not None and marks["dom"] <= fcp else marks["paint"]
    return {
        "card_dom_ms": marks["dom"], "card_paint_ms": painted, "fcp_ms": fcp,
        "document_bytes": document.get("bytes", 0), "document_encoding": document.get("encoding") or "none",
        "needed_bytes": sum(r["bytes"] for r in needed),
        "needed": [(_short(r["url"], base_url), r["bytes"], round(at_ms(r), 1)) for r in needed],
        "all": [(_short(r["url"], base_url), r["bytes"], round(at_ms(r), 1)) for r in sorted(done, key=at_ms)],
    }


def _warm(base_url: str, rounds: int = 4, parallel: int = 6) -> None:
    """Several home pages at once, a few times: every server worker has loaded the snapshot and its templates."""
    from benchmarks.servers import get

    for _ in range(rounds):
        threads = [threading.Thread(target=get, args=(base_url + "/",)) for _ in range(parallel)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def _uncompressed_size(base_url: str) -> int:
    """The home page's HTML as the server renders it, before compression."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.request("GET", "/", headers={"Accept-Encoding": "identity"})
        return len(connection.getresponse().read())
    finally:
        connection.close()


def _header(headers: dict, name: str) -> str | None:
    return next((v for k, v in headers.items() if k.lower() == name), None)


def _short(url: str, base_url: str) -> str:
    return url[len(base_url):] or "/" if url.startswith(base_url) else url

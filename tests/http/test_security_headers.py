"""Every answer carries the security headers, and no page runs script the Content-Security-Policy did not allow:
no inline <script> without the response's nonce, no on*= handler attributes, no javascript: links. Templates are
edited by many hands; this scan is what keeps inline script from coming back."""

from html.parser import HTMLParser

import pytest

PAGES = ["/", "/?q=csv", "/d/rlx-examples/terminal-basics", "/d/rlx-examples/terminal-basics?q=log",
         "/t/rlx-examples/terminal-basics/csv-sales-rollup",
         "/t/rlx-examples/terminal-basics/csv-sales-rollup?f=tests/test.sh",
         "/t/rlx-examples/terminal-basics/csv-sales-rollup?f=tests/test.sh&view=full",
         "/d/rlx-examples/trivia-table", "/d/nobody/nothing-here", "/s/rlx-examples/echo-env"]


class ScriptScan(HTMLParser):
    """Collects what a browser would run that the policy must have allowed by name."""

    def __init__(self):
        super().__init__()
        self.inline_scripts, self.handlers, self.js_urls, self.nonces, self.styles = [], [], [], [], []
        self._in_script = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if name.startswith("on"):
                self.handlers.append((tag, name))
            if name in ("href", "src", "action", "formaction") and (value or "").strip().lower().startswith(
                    "javascript:"):
                self.js_urls.append((tag, value))
        if tag == "script" and not attrs.get("src"):
            self._in_script = attrs.get("nonce")
            self.inline_scripts.append(attrs.get("nonce"))
        if tag == "style":
            self.styles.append(attrs.get("nonce"))


def scan(html: str) -> ScriptScan:
    parser = ScriptScan()
    parser.feed(html)
    return parser


def csp_of(response) -> dict[str, str]:
    policy = response.headers["Content-Security-Policy"]
    return {part.split()[0]: " ".join(part.split()[1:]) for part in policy.split(";") if part.strip()}


@pytest.mark.parametrize("url", PAGES)
def test_no_page_runs_inline_script_and_its_one_stylesheet_carries_the_nonce(indexed_client, url):
    response = indexed_client.get(url)
    assert response.status_code in (200, 404), url
    found = scan(response.get_data(as_text=True))
    csp = csp_of(response)
    nonce = csp["style-src"].split("'nonce-")[1].rstrip("'")
    assert found.handlers == [] and found.js_urls == []
    assert [n for n in found.inline_scripts if n is None] == [], "an inline <script> without a nonce"
    assert found.styles and all(style == nonce for style in found.styles)
    assert "'unsafe-inline'" not in csp["script-src"] and "'unsafe-eval'" not in csp["script-src"]


def test_the_nonce_changes_with_every_response(indexed_client):
    first, second = (csp_of(indexed_client.get("/"))["style-src"] for _ in range(2))
    assert first != second


@pytest.mark.parametrize("url", ["/", "/api/search", "/healthz", "/d/nobody/nothing-here", "/api/env/nobody/none"])
def test_every_answer_forbids_framing_sniffing_and_leaking_the_address(client, url):
    headers = client.get(url).headers
    assert csp_of(client.get(url))["frame-ancestors"] == "'none'"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert "camera=()" in headers["Permissions-Policy"] and "microphone=()" in headers["Permissions-Policy"]
    assert "Strict-Transport-Security" not in headers  # plain http: HSTS would be ignored, and wrong


def test_hsts_is_sent_when_the_request_came_over_https(client):
    headers = client.get("/healthz", base_url="https://localhost").headers
    assert "max-age=" in headers["Strict-Transport-Security"]


def test_a_forged_forwarded_proto_on_plain_http_gets_no_hsts(client):
    """No proxy is configured (RLX_PROXY_HOPS=0): X-Forwarded-Proto is anyone's to write, so it proves nothing."""
    headers = client.get("/healthz", headers={"X-Forwarded-Proto": "https"}).headers
    assert "Strict-Transport-Security" not in headers


def test_hsts_is_sent_when_a_configured_proxy_says_https(make_config, redis_client):
    from rlx import create_app

    client = create_app(make_config(RLX_PROXY_HOPS="1")).test_client()
    proxied = client.get("/healthz", headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"})
    assert "max-age=" in proxied.headers["Strict-Transport-Security"]
    assert "Strict-Transport-Security" not in client.get("/healthz", headers={"X-Forwarded-Proto": "http"}).headers


@pytest.mark.parametrize("public_url, sent", [("https://explorer.example.org", True),
                                              ("http://explorer.example.org", False)])
def test_hsts_follows_the_public_url_whatever_the_last_hop_was(make_config, redis_client, public_url, sent):
    """TLS often ends at a proxy the operator did not count in RLX_PROXY_HOPS; an https public URL says enough."""
    from rlx import create_app

    client = create_app(make_config(RLX_PUBLIC_URL=public_url)).test_client()
    headers = client.get("/healthz", base_url="http://explorer.example.org").headers
    assert ("Strict-Transport-Security" in headers) is sent


def test_a_space_page_may_embed_only_hf_space_apps(client):
    csp = csp_of(client.get("/"))
    assert csp["frame-src"] == "https://*.hf.space" and csp["frame-ancestors"] == "'none'"

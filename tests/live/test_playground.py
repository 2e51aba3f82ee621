"""The playground, driven over a real WebSocket against gunicorn (gevent, the production path) relaying to a
real openenv server: reset, step, reward, an MCP call on the same episode, the state; and every way a server or a
visitor can misbehave gets a sentence, with nothing left open."""

from __future__ import annotations

import html
import json
import re
import urllib.request

import pytest
from websockets.sync.client import connect

from rlx.live.slots import open_count
from tests import browser_audit
from tests.processes import wait_or_fail
from tests.live_site import ECHO, served_site
from tests.servers import chromium, needs_chromium
from tests.stand_ins.bad_ws import BadWs

BAD = "acme/bad-ws"


@pytest.fixture(scope="module")
def bad_ws():
    with BadWs() as server:
        yield server


@pytest.fixture(scope="module")
def site(tmp_path_factory, redis_url, openenv_server, bad_ws):
    with served_site(tmp_path_factory.mktemp("play"), redis_url,
                     {"rlx-examples-echo-env": openenv_server, "acme-bad-ws": bad_ws.url}, {BAD: "acme-bad-ws"}) as url:
        yield url


@pytest.fixture(scope="module")
def quick_idle_site(tmp_path_factory, redis_url, bad_ws):
    with served_site(tmp_path_factory.mktemp("idle"), redis_url, {"acme-bad-ws": bad_ws.url}, {BAD: "acme-bad-ws"},
                     idle_s=2) as url:
        yield url


class Player:
    """What htmx's ws extension does: open the socket, send each form as JSON, take each answer's fragments."""

    def __init__(self, site: str, space: str, cookie: str | None = None):
        headers = {"Origin": site, **({"Cookie": cookie} if cookie else {})}
        self.ws = connect(site.replace("http", "ws", 1) + f"/s/{space}/play/ws", additional_headers=headers,
                          open_timeout=10)
        self.first = self.receive()

    def send(self, **form) -> str:
        self.ws.send(json.dumps({**form, "HEADERS": {"HX-Request": "true"}}))
        return self.receive()

    def receive(self) -> str:
        return self.ws.recv(timeout=20)

    def close(self):
        self.ws.close()


def status(html: str) -> str:
    found = re.search(r'id="play-status"[^>]*>(.*?)</p>', html, re.S)
    return found.group(1) if found else ""


def cookie_of(site: str, space: str) -> tuple[str, str]:
    with urllib.request.urlopen(f"{site}/s/{space}/play", timeout=30) as response:
        page = response.read().decode()
        return page, response.headers["Set-Cookie"].split(";", 1)[0]


def until(predicate, what: str, seconds: float = 10):
    wait_or_fail(predicate, what, seconds)


def test_reset_step_reward_tool_call_and_state_on_one_episode(site, redis_client):
    page, cookie = cookie_of(site, ECHO)
    assert 'ws-connect="/s/rlx-examples/echo-env/play/ws"' in page and 'name="message"' in page  # action schema
    assert "needs JavaScript and WebSockets" in page  # in <noscript>: what JS-off visitors read
    assert '<option value="echo_message">' in page
    player = Player(site, ECHO, cookie)
    assert "Ready. Reset to start an episode" in status(player.first)
    first = player.send(op="reset")
    assert "Echo environment ready!" in first and "reward <strong" in first
    stepped = player.send(op="step", message="hello there")
    assert "hello there" in stepped and "reward 1.1" in status(stepped)  # the echo env's: 0.1 per character
    assert "<polyline" in stepped and 'points="' in stepped  # the rewards plotted so far
    called = player.send(op="mcp", tool="echo_message", arguments='{"message": "via mcp"}')
    assert "tool echo_message" in called and "via mcp" in called and "error" not in status(called)
    state = html.unescape(player.send(op="state"))
    assert '"step_count": 1' in state  # the tool call ran on the same episode without counting as a step
    bad = player.send(op="step", message="")
    assert "Message is required." in status(bad)
    still = player.send(op="step", message="again")  # a refused form leaves the episode usable
    assert "again" in still and "step 2" in still
    player.close()
    until(lambda: open_count(redis_client) == 0, "the session's slot was not given back")


@pytest.mark.parametrize("mode, sentence", [
    ("close", "closed the connection during step"),
    ("hang", "did not answer step within 1.5 s"),
    ("notjson", "something that is not JSON"),
    ("huge", "more than 4 MB in one message"),
])
def test_a_misbehaving_server_gets_a_sentence_and_nothing_stays_open(site, bad_ws, redis_client, mode, sentence):
    bad_ws.mode = mode
    player = Player(site, BAD)
    assert "ready" in player.send(op="reset")
    answer = player.send(op="step", __action__='{"x": 1}')
    assert sentence in status(answer) and "Reload the page" in status(answer)
    with pytest.raises(Exception):  # we closed our side too
        player.receive()
    until(lambda: bad_ws.open == 0, "the server's socket was left open")
    until(lambda: open_count(redis_client) == 0, "the session's slot was not given back")


def test_fifty_playgrounds_from_one_visitor_get_three_and_a_sentence(site, bad_ws, redis_client):
    bad_ws.mode = "ok"
    _, cookie = cookie_of(site, BAD)
    players, refused = [], []
    for _ in range(50):
        player = Player(site, BAD, cookie)
        (players if "Ready. Reset" in status(player.first) else refused).append(player)
    assert len(players) == 3 and len(refused) == 47
    assert "already have 3 playgrounds open" in status(refused[0].first)
    for player in players + refused:
        player.close()
    until(lambda: open_count(redis_client) == 0 and bad_ws.open == 0, "sessions were left open")
    again = Player(site, BAD, cookie)  # a closed one frees its place
    assert "Ready. Reset" in status(again.first) and "ready" in again.send(op="reset")
    again.close()
    until(lambda: open_count(redis_client) == 0, "the last session was left open")


def test_new_cookies_from_one_address_still_get_three_playgrounds(site, bad_ws, redis_client):
    """The cap holds per person: an anonymous visitor is their address (RLX_PROXY_HOPS says whose), so fetching
    a fresh cookie for each session does not open a fourth."""
    bad_ws.mode = "ok"
    players = [Player(site, BAD, cookie_of(site, BAD)[1]) for _ in range(12)]
    connected = [p for p in players if "Ready. Reset" in status(p.first)]
    assert len(connected) == 3, [status(p.first) for p in players]
    for player in players:
        player.close()
    until(lambda: open_count(redis_client) == 0 and bad_ws.open == 0, "sessions were left open")


def test_a_task_by_split_and_index_and_every_kind_of_observation(site, bad_ws, redis_client):
    bad_ws.mode = "ok"
    player = Player(site, BAD)
    started = html.unescape(player.send(op="reset", split="train", index="2"))
    assert "reset · train #2" in started and '"split": "train"' in started and '"index": 2' in started
    assert "must be between 0" in status(player.send(op="reset", split="train", index="-1"))
    drawn = player.send(op="step", __action__='{"x": 1}')
    assert '<img src="data:image/png;base64,' in drawn  # the image drawn
    assert 'class="chat-assistant"' in drawn and "hello, human" in drawn  # the chat, message by message
    assert "ZX-SECRET-7" not in drawn and "1 answer-like field withheld" in drawn
    player.close()


def test_an_idle_session_ends_by_itself(quick_idle_site, bad_ws, redis_client):
    bad_ws.mode = "ok"
    player = Player(quick_idle_site, BAD)
    assert "minutes without a step" in status(player.receive())
    until(lambda: open_count(redis_client) == 0 and bad_ws.open == 0, "the idle session was left open")


def test_a_cross_site_page_cannot_open_a_playground(site):
    ws = connect(site.replace("http", "ws", 1) + f"/s/{ECHO}/play/ws",
                 additional_headers={"Origin": "https://evil.example"}, open_timeout=10)
    assert "Cross-site pages may not open a playground" in ws.recv(timeout=10)


def test_a_redirect_on_ws_is_not_followed():
    import threading

    from websockets.sync.server import serve

    from rlx.live.episode import Episode
    from rlx.live.errors import LiveError

    def redirect(connection, request):
        response = connection.respond(302, "moved\n")
        response.headers["Location"] = "https://evil.example/ws"
        return response

    with serve(lambda ws: None, "127.0.0.1", 0, process_request=redirect) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        with pytest.raises(LiveError) as refused:
            Episode(f"http://127.0.0.1:{server.socket.getsockname()[1]}")
        server.shutdown()
    assert refused.value.reason == "redirect" and "evil.example" in str(refused.value)


# Each field of the playground's forms, as drawn: its background, corner and border beside the app's own buttons.
FIELD_LOOKS_JS = """() => {
  const look = el => {
    const s = getComputedStyle(el);
    return [s.backgroundColor, s.borderTopLeftRadius, s.borderTopColor];
  };
  const button = look(document.querySelector('.play-form button'));
  return [...document.querySelectorAll('.play-form :is(input:not([type=hidden]), select, textarea)')].map(el =>
    ({field: el.outerHTML.slice(0, 60), looks: look(el), button,
      mono: getComputedStyle(el).fontFamily.includes('monospace')}));
}"""


@needs_chromium
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_playground_fields_are_drawn_like_the_rest_of_the_app(site, theme):
    """No browser-default field (white in the dark theme, square, grey): each looks like the app's buttons, the
    JSON boxes are monospace, and the live playground passes the browser audit's width and axe checks."""
    with chromium() as browser:
        for width in (390, 1280):
            page = browser.new_context(color_scheme=theme, viewport={"width": width, "height": 900}).new_page()
            page.goto(f"{site}/s/{ECHO}/play")
            page.wait_for_selector("#play-status[data-connected]", timeout=20_000)
            fields = page.evaluate(FIELD_LOOKS_JS)
            assert len(fields) >= 4  # seed, message, tool, arguments
            for field in fields:
                assert field["looks"] == field["button"], field
            assert [f["mono"] for f in fields if "<textarea" in f["field"]] == [False, True]  # message, arguments
            assert browser_audit.overflow(page) == []
            if width == 1280:
                assert browser_audit.axe(page) == []
            page.context.close()


@needs_chromium
def test_the_steps_list_says_none_yet_until_the_first_step_arrives(site):
    with chromium() as browser:
        page = browser.new_page()
        page.goto(f"{site}/s/{ECHO}/play")
        page.wait_for_selector("#play-status[data-connected]", timeout=20_000)
        empty = page.locator("#play-log .play-log-empty")
        assert empty.inner_text() == "No step yet." and empty.is_visible()
        page.get_by_role("button", name="Reset").click()
        page.wait_for_selector("#play-log .play-step", timeout=20_000)
        assert not empty.is_visible()
        page.context.close()

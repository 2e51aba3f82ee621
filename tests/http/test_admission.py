"""A saturated worker turns new requests away at once, with 503 and Retry-After, instead of answering them late.

Requests are held in flight by a route these tests add, each on its own thread; what a visitor then gets from the
real pages and API is asserted. How long a request takes is the worker's learned estimate, set here as a worker
would have learned it.
"""

import threading

import pytest

from tests.processes import wait_or_fail


@pytest.fixture
def held(app):
    """Hold requests in flight: `held.start(n)` sends n requests that wait until `held.release()`."""

    class Held:
        def __init__(self):
            self.go = threading.Event()
            self.inside = 0
            self.answers = []
            self.threads = []
            self._lock = threading.Lock()

        def start(self, n):
            for _ in range(n):
                thread = threading.Thread(target=lambda: self.answers.append(app.test_client().get("/test/hold")))
                thread.start()
                self.threads.append(thread)
            wait_or_fail(lambda: self.inside >= len(self.threads), "the held requests never started", 10, every=0.01)

        def release(self):
            self.go.set()
            for thread in self.threads:
                thread.join(10)

    held = Held()

    def hold():
        with held._lock:
            held.inside += 1
        held.go.wait(10)
        return "done"

    app.add_url_rule("/test/hold", "test_hold", hold)
    yield held
    held.release()


def test_a_full_worker_answers_503_with_retry_after_and_a_sentence(app, held):
    client = app.test_client()
    assert client.get("/api/search").status_code == 200
    app.extensions["rlx.admission"].max_in_flight = 3
    held.start(3)

    api = client.get("/api/search?q=puzzle")
    assert api.status_code == 503
    assert int(api.headers["Retry-After"]) >= 1
    assert "busy" in api.get_json()["error"] and "3 requests are ahead" in api.get_json()["error"]
    page = client.get("/")
    assert page.status_code == 503 and int(page.headers["Retry-After"]) >= 1
    assert "busy" in page.get_data(as_text=True)
    assert client.get("/healthz").status_code == 200  # probes are never turned away

    held.release()
    assert [a.get_data(as_text=True) for a in held.answers] == ["done"] * 3  # those let in were answered
    assert client.get("/api/search?q=puzzle").status_code == 200  # and the worker takes new ones again


def test_a_worker_turns_requests_away_when_the_wait_would_pass_the_limit(app, held):
    admission = app.extensions["rlx.admission"]
    admission.min_in_flight = 2
    admission.per_request_s = 0.4  # as learned by a worker whose requests take 0.4 s each
    client = app.test_client()
    held.start(2)  # 2 × 0.4 s = 0.8 s of work ahead: under the one-second limit
    assert client.get("/api/search").status_code == 200
    held.start(1)  # 1.2 s ahead
    answer = client.get("/api/search")
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "2"


def test_one_slow_request_alone_is_not_saturation(app, held):
    admission = app.extensions["rlx.admission"]
    admission.per_request_s = 5.0
    held.start(1)
    assert app.test_client().get("/api/search").status_code == 200

"""The judge relay: how a model-graded task's verifier, inside the sandbox, reaches the judge the visitor picked.

Why a per-run unix socket and not an HTTP route of this app (the design's `/api/llm/<capability>`): a no-network
task's sandbox has no interface but loopback, so it cannot reach the app at all, and a route would need a bearer
capability that the agent, running in the same sandbox before the verifier, could read and spend. The socket
needs neither: the worker serves this relay on a unix socket in a folder of its own, linked read-only into the
sandbox at SANDBOX_DIR, and a forwarder started inside the sandbox when the verifier starts
(rlx/runs/judge_run.py) listens on the sandbox's loopback (RLX_JUDGE_URL) and pipes each connection to it.

It is the model relay (rlx/runs/model_relay.py: the key added here, every connection through the egress checks,
answers streamed back) with a judge's rules: chat completions only; the model forced to the picked judge,
whatever the request names; a smaller body; at most MAX_CALLS calls per run, each counted for the record
(`judge_calls`); and shut while the agent works, so the agent cannot spend the judge, only the verifier can.
"""

from __future__ import annotations

import json

from rlx.runs.egress import Egress
from rlx.runs.model_relay import ModelRelay, Refused

SANDBOX_DIR = "/run/rlx-judge"  # where the relay's folder (its socket and the forwarder) appears in the sandbox
FORWARD_PORT = 18081
JUDGE_URL = f"http://127.0.0.1:{FORWARD_PORT}/v1"  # RLX_JUDGE_URL for the task's verifier
MAX_CALLS = 400  # a rubric of a few dozen checks fits many times over; a loop does not
MAX_JUDGE_BODY = 4 * 1024 * 1024  # a rubric and the deliverable's extracted text (MiMo cuts each file at 20,000 chars)
CALL_TIMEOUT = 300.0


class JudgeRelay(ModelRelay):
    paths = ("/v1/chat/completions",)
    max_body = MAX_JUDGE_BODY

    def __init__(self, endpoint: str, key: str | None, egress: Egress, model: str, max_calls: int = MAX_CALLS,
                 call_timeout: float = CALL_TIMEOUT):
        super().__init__(endpoint, key, egress, call_timeout=call_timeout)
        self.model, self.max_calls = model, max_calls
        self.open = False  # opened when the verifier starts, shut when an agent phase does

    def admit(self, method: str, path: str, body: bytes) -> bytes:
        if method != "POST":
            raise Refused(405, "The judge answers POST /v1/chat/completions only.")
        if not self.open:
            raise Refused(403, "The judge answers the task's verifier only, while it runs.")
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
            raise Refused(400, "A judge call is a chat-completions request: a JSON object with `messages`.")
        request["model"] = self.model  # the visitor's pick from the admin's pool, never the task's choice
        with self._lock:
            if self.calls >= self.max_calls:
                raise Refused(429, f"This run's judge has answered its {self.max_calls} calls.")
            self.calls += 1
        return json.dumps(request).encode()

"""An OpenEnv-shaped /ws server that misbehaves on purpose once an episode is under way: set `.mode` to

  close     closes the socket when a step arrives (mid-step)
  hang      never answers a step
  notjson   answers a step with text that is not JSON
  huge      answers a step with one 8 MB frame
  ok        answers like a real server: reset says what it was asked (its data); a step answers an image, a
            chat, a text and an answer-like field (`gold_answer`, which must never be shown), reward 1.0

`.open` counts the sockets connected right now, so a test can see that nothing was left open.
"""

from __future__ import annotations

import json
import threading

from websockets.exceptions import ConnectionClosed
from websockets.sync.server import serve


PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
RICH = {"text": "a frame", "frame": PIXEL, "messages": [{"role": "user", "content": "hi"},
                                                       {"role": "assistant", "content": "hello, human"}],
        "gold_answer": "ZX-SECRET-7"}


class BadWs:
    def __init__(self, mode: str = "ok"):
        self.mode = mode
        self.open = 0
        self._lock = threading.Lock()
        self._server = serve(self._handle, "127.0.0.1", 0, max_size=None)
        self.url = f"http://127.0.0.1:{self._server.socket.getsockname()[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "BadWs":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()

    def _handle(self, ws) -> None:
        with self._lock:
            self.open += 1
        try:
            for raw in ws:
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "reset":
                    ws.send(json.dumps({"type": "observation", "data": {
                        "observation": {"text": "ready", "reset_with": frame.get("data")}, "reward": 0.0,
                        "done": False}}))
                elif self.mode == "ok":
                    ws.send(json.dumps({"type": "observation", "data": {"observation": RICH, "reward": 1.0,
                                                                        "done": False}}))
                elif self.mode == "close":
                    ws.close()
                elif self.mode == "hang":
                    continue
                elif self.mode == "notjson":
                    ws.send("<html>oops</html>")
                elif self.mode == "huge":
                    ws.send("x" * (8 * 1024 * 1024))
        except ConnectionClosed:
            pass
        finally:
            with self._lock:
                self.open -= 1

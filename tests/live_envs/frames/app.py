"""Frames on a real OpenEnv server, shaped like OpenEnv's Atari environment (read: meta-pytorch/OpenEnv
envs/atari_env/models.py): `screen` is a 210 × 160 RGB frame as a flat list of 100,800 numbers with
`screen_shape` beside it, and `screen_image` the same picture as base64 PNG bytes. Beside them the other layouts
frames come in (nested height × width × channels, channels first, grey), a RAM dump and a long log; and an
answer sent once under an answer-like name (reset's `correct_answer`), then under ordinary ones after a step.
uvicorn app:app, run from this folder. The picture: a paddle whose row is the step count, on a dark field."""

import base64
import struct
import zlib
from typing import Any, List, Optional
from uuid import uuid4

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

HEIGHT, WIDTH = 210, 160


class PaddleAction(Action):
    action_id: int = Field(0, ge=0, le=5, description="0 stays, 2 moves up, 3 moves down.")


class FrameObservation(Observation):
    screen: List[int] = Field(default_factory=list)
    screen_shape: List[int] = Field(default_factory=list)
    screen_image: Optional[str] = None
    thumbnail: List[List[List[int]]] = Field(default_factory=list)
    planes: List[List[List[float]]] = Field(default_factory=list)
    grey: List[List[int]] = Field(default_factory=list)
    ram: List[int] = Field(default_factory=list)
    log: str = ""
    lives: int = 3
    correct_answer: Optional[str] = None  # sent by reset only, as reasoning-gym does
    total_legs: Optional[int] = None  # the same value under an ordinary name, after a step
    summary: str = ""


def _pixel(row: int, col: int, paddle: int) -> tuple[int, int, int]:
    if paddle <= row < paddle + 16 and 140 <= col < 144:
        return (236, 236, 236)
    return (144, 72, 17)


def _png(pixels: bytes) -> str:
    raw = b"".join(b"\x00" + pixels[r * WIDTH * 3:(r + 1) * WIDTH * 3] for r in range(HEIGHT))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return base64.b64encode(png).decode()


class PaddleEnv(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        super().__init__()
        self._state = State(episode_id=str(uuid4()), step_count=0)
        self._paddle = 100

    def _observe(self, reward: float = 0.0, **answers: Any) -> FrameObservation:
        flat = [v for r in range(HEIGHT) for c in range(WIDTH) for v in _pixel(r, c, self._paddle)]
        return FrameObservation(
            screen=flat, screen_shape=[HEIGHT, WIDTH, 3], screen_image=_png(bytes(flat)),
            thumbnail=[[[0, 0, 255] if (r + c) % 2 else [255, 255, 0] for c in range(24)] for r in range(20)],
            planes=[[[c / 31 for c in range(32)] for _ in range(32)] for _ in range(3)],
            grey=[[(r * 8 + c) % 256 for c in range(84)] for r in range(84)],
            ram=[i % 256 for i in range(128)],
            log="\n".join(f"frame {i}: nothing happened" for i in range(5000)),
            reward=reward, done=False, **answers)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kw: Any) -> FrameObservation:
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
        self._paddle = 100
        return self._observe(correct_answer="7919")

    def step(self, action: PaddleAction, timeout_s: Optional[float] = None, **kw: Any) -> FrameObservation:
        self._state.step_count += 1
        self._paddle += {2: -8, 3: 8}.get(action.action_id, 0)
        self._paddle = max(0, min(HEIGHT - 16, self._paddle))
        return self._observe(reward=1.0 if action.action_id else 0.0, total_legs=7919,
                             summary="The answer was 7919 legs.")

    @property
    def state(self) -> State:
        return self._state


app = create_app(PaddleEnv, PaddleAction, FrameObservation, env_name="paddle", max_concurrent_envs=8)

"""Noughts and crosses on a real OpenEnv server that takes ONE /ws session (OpenEnv's default, as chess, connect4
and Atari servers do): uvicorn app:app, run from this folder. The agent plays X by cell number (0-8); the server
answers O in the first free cell. `think_s` makes a step hang that long, like a step stuck in real work. The board
is a list of rows, as board games' observations are."""

import time
from typing import Any, List, Optional
from uuid import uuid4

from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class MoveAction(Action):
    cell: int = Field(..., ge=0, le=8, description="The cell to mark with X, 0-8 row by row.")
    think_s: float = Field(0.0, ge=0, le=30, description="Seconds the server spends on this move.")


class BoardObservation(Observation):
    board: List[List[str]] = Field(default_factory=list)
    message: str = ""


class GameState(State):
    winner: Optional[str] = None


class NoughtsAndCrosses(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = False

    def __init__(self):
        super().__init__()
        self._cells = [" "] * 9
        self._state = GameState(episode_id=str(uuid4()), step_count=0)

    def _observe(self, message: str, reward: float = 0.0, done: bool = False) -> BoardObservation:
        rows = [self._cells[i:i + 3] for i in (0, 3, 6)]
        return BoardObservation(board=rows, message=message, reward=reward, done=done)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kw: Any) -> BoardObservation:
        self._cells = [" "] * 9
        self._state = GameState(episode_id=episode_id or str(uuid4()), step_count=0)
        return self._observe("Your move: you are X.")

    def step(self, action: MoveAction, timeout_s: Optional[float] = None, **kw: Any) -> BoardObservation:
        if action.think_s:
            time.sleep(action.think_s)
        self._state.step_count += 1
        if self._cells[action.cell] != " ":
            return self._observe(f"Cell {action.cell} is taken.", reward=-1.0)
        self._cells[action.cell] = "X"
        if self._won("X"):
            self._state.winner = "X"
            return self._observe("X wins.", reward=1.0, done=True)
        free = [i for i, c in enumerate(self._cells) if c == " "]
        if not free:
            return self._observe("A draw.", done=True)
        self._cells[free[0]] = "O"
        if self._won("O"):
            self._state.winner = "O"
            return self._observe("O wins.", reward=-1.0, done=True)
        return self._observe(f"O took cell {free[0]}. Your move.")

    def _won(self, mark: str) -> bool:
        return any(all(self._cells[i] == mark for i in line) for line in LINES)

    @property
    def state(self) -> GameState:
        return self._state


app = create_app(NoughtsAndCrosses, MoveAction, BoardObservation, env_name="noughts_and_crosses")

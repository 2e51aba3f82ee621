"""The echo environment: every step returns the action's message."""

from __future__ import annotations

from typing import Any, Optional
from uuid import uuid4

from fastmcp import FastMCP

from models import EchoAction, EchoObservation, EchoState
from openenv.core.env_server.mcp_environment import MCPEnvironment

MAX_STEPS = 20


class EchoEnvironment(MCPEnvironment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        mcp = FastMCP("echo_env")

        @mcp.tool
        def echo_message(message: str) -> str:
            """Return the message unchanged."""
            return message

        @mcp.tool
        def echo_with_length(message: str) -> dict:
            """Return the message and its length in characters."""
            return {"message": message, "length": len(message)}

        super().__init__(mcp)
        self._state = EchoState(episode_id=str(uuid4()), step_count=0)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kwargs: Any) -> EchoObservation:
        self._state = EchoState(episode_id=episode_id or str(uuid4()), step_count=0)
        return EchoObservation(echoed_message="Echo environment ready!", message_length=0, reward=0.0)

    def _step_impl(self, action: EchoAction, timeout_s: Optional[float] = None, **kwargs: Any) -> EchoObservation:
        self._state.step_count += 1
        self._state.total_characters += len(action.message)
        return EchoObservation(
            echoed_message=action.message,
            message_length=len(action.message),
            reward=0.1 * len(action.message),
            done=self._state.step_count >= MAX_STEPS,
            metadata={"step": self._state.step_count},
        )

    @property
    def state(self) -> EchoState:
        return self._state

"""Action, observation and state types of the echo environment."""

from pydantic import Field

from openenv.core.env_server.types import Action, Observation, State


class EchoAction(Action):
    """Send a message to be echoed back."""

    message: str = Field(..., min_length=1, max_length=2000, description="text to echo")


class EchoObservation(Observation):
    """What the environment answers: the message and its length."""

    echoed_message: str = ""
    message_length: int = 0


class EchoState(State):
    """Episode bookkeeping on top of episode_id and step_count."""

    total_characters: int = 0

"""FastAPI app for the echo environment (uvicorn server.app:app)."""

import os

from models import EchoAction, EchoObservation
from openenv.core.env_server.http_server import create_app
from server.echo_environment import EchoEnvironment

app = create_app(
    EchoEnvironment,
    EchoAction,
    EchoObservation,
    env_name="echo_env",
    max_concurrent_envs=int(os.environ.get("MAX_CONCURRENT_ENVS", "8")),
)


def main() -> None:
    import uvicorn

    uvicorn.run(app, host="0.0.0.0", port=int(os.environ.get("PORT", "8000")))


if __name__ == "__main__":
    main()

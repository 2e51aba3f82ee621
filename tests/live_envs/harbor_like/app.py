"""An OpenEnv server shaped like openenv.harbor's harbor_env: uvicorn app:app (run from this folder)."""

import json
from typing import Any, Optional
from uuid import uuid4

from fastmcp import FastMCP
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.mcp_environment import MCPEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, CallToolObservation
from openenv.core.env_server.types import Observation, State

SPLITS = [{"name": "harbor-org/terminal-tasks", "num_tasks": 3},
          {"name": "terminal-bench@2.0", "num_tasks": 80},
          {"name": "broken-org/missing", "num_tasks": 0, "error": "dataset not found"}]
TASKS = [{"index": i, "task_id": f"t{i}", "task_name": f"task {i}", "dataset": SPLITS[0]["name"],
          "instruction": f"Do thing {i}.", "solution": f"the secret answer {i}"} for i in range(3)]
CAPABILITIES = {
    "harnesses": [{"name": "opencode", "dialect": "openai", "kind": "installed", "status": "validated",
                   "needs_subclass": False, "notes": ""},
                  {"name": "terminus-2", "dialect": "openai", "kind": "base", "status": "untested",
                   "needs_subclass": False, "notes": ""}],
    "sandboxes": [{"name": "docker", "available": True, "detail": ""},
                  {"name": "e2b", "available": False, "detail": "E2B_API_KEY is not set"}],
    "datasets": SPLITS,
    "llm": {"model": "Qwen/Qwen3-8B", "ok": True},
}


class HarborLikeEnv(MCPEnvironment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self):
        mcp = FastMCP("harbor_env")

        @mcp.tool
        def capabilities() -> str:
            """Harnesses, sandboxes, datasets and LLM status for this server."""
            return json.dumps(CAPABILITIES)

        @mcp.tool
        def run_rollout(split: str, task_index: int, harness: str = "opencode", sandbox: str = "e2b") -> str:
            """Run one task end to end (never called by the explorer)."""
            raise RuntimeError("the explorer must never start a rollout")

        @mcp.tool
        def grade(index: int) -> str:
            """How a task is graded, its reference answer included (as a grader's tool may say)."""
            return json.dumps({"task_id": f"t{index}", "reference_answer": TASKS[index]["solution"]})

        @mcp.tool
        def explain(index: int) -> str:
            """A sentence about a task that repeats its answer under no answer-like name."""
            return f"Task {index} is done once you reach {TASKS[index]['solution']}."

        super().__init__(mcp)
        self._state = State(episode_id=str(uuid4()), step_count=0)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, **kw: Any) -> Observation:
        self._state = State(episode_id=episode_id or str(uuid4()), step_count=0)
        return CallToolObservation(tool_name="", result=None)

    def _step_impl(self, action, timeout_s=None, **kw):
        self._state.step_count += 1
        return CallToolObservation(tool_name="", result=None)

    @property
    def state(self) -> State:
        return self._state

    def list_splits(self):
        return SPLITS

    def list_tasks(self, split):
        return TASKS

    def num_tasks(self, split):
        return len(TASKS)

    def get_task(self, split, index):
        return TASKS[index]

    def get_task_range(self, split, start=None, stop=None):
        return TASKS[start:stop]


app = create_app(HarborLikeEnv, CallToolAction, CallToolObservation, env_name="harbor_env", max_concurrent_envs=4)

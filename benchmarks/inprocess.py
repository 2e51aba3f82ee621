"""The app built in this process, for the floor and the profiles: its own search functions without HTTP.

`answer(path)` runs what the route behind `path` runs against the snapshot (run_search for /api/search,
search_tasks for /api/search/tasks), inside a request context, so the floor follows the app's code as it changes
(a home search that also looks for tasks, admin settings applied) with none of Flask's dispatch, JSON or gzip.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator
from unittest import mock

from flask import request

from benchmarks.workspace import Workspace


class InProcessApp:
    def __init__(self, ws: Workspace):
        from rlx import create_app
        from rlx.config import Config

        self.app = create_app(Config.from_env(ws.env()))
        self.client = self.app.test_client()

    @contextmanager
    def request(self, path: str) -> Iterator[Callable[[], dict]]:
        """Inside a request for `path`: a function that answers it as the route does, minus HTTP."""
        with self.app.test_request_context(path):
            yield self._answer_for(path)

    def answer(self, path: str) -> dict:
        with self.request(path) as answer:
            return answer()

    def statements(self, path: str, timed_connection) -> None:
        """Answer `path` once with every query going through `timed_connection` (see profiling.statements)."""
        self.on_connection(path, timed_connection)

    def on_connection(self, path: str, db) -> dict:
        """Answer `path` once on the connection `db` instead of one from the app's reader."""
        import rlx.web.catalog.search as search_module

        @contextmanager
        def given_catalog():
            yield db

        with mock.patch.object(search_module, "catalog", given_catalog), self.request(path) as answer:
            return answer(timed=db)

    @staticmethod
    def _answer_for(path: str) -> Callable[..., dict]:
        from rlx.snapshot.task_search import search_tasks
        from rlx.snapshot.app_catalog import catalog
        from rlx.web.catalog.search import SearchQuery, run_search

        if path.startswith("/api/search/tasks"):
            def tasks(timed=None) -> dict:
                args = request.args
                with (_passthrough(timed) if timed is not None else catalog()) as db:
                    return search_tasks(db, q=args.get("q", "")[:300], env=args.get("env") or None,
                                        page=args.get("page", 1), size=args.get("size", 24))
            return tasks

        def envs(timed=None) -> dict:
            return run_search(SearchQuery.from_args(request.args), trending=int(request.args.get("trending", 0)))
        return envs


@contextmanager
def _passthrough(db):
    yield db

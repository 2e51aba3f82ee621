"""The admin's list of rollouts, with who ran them, and taking one off the community pages.

Who ran a run is its record's owner id: "hf:<handle>" for a signed-in visitor, "s:<hash>" for an anonymous browser
session, none for the server itself (the CLI). The public app never selects or shows that column; only this
module turns it into a name.

Taking a run off community sets its visibility to WITHDRAWN in its record and in the index of runs: community
pages, leaderboards, heatmaps and Compare read only public runs, and the run page shows a non-public run only to
its owner, so the change is seen by every explorer process on its next request. Restoring sets it public again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rlx.runs import record, runs_db
from rlx.runs.record import ACTIVE, DONE, RunRecord, WITHDRAWN
from rlx.store import Store
from rlx.sources.names import ENV_ID, NAME_PART

ANONYMOUS = "anonymous"
STATUSES = (*ACTIVE, *DONE)
VISIBILITIES = ("public", "private", WITHDRAWN)
PAGE_SIZES = (25, 50, 100, 200)
DEFAULT_SIZE = 50
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,199}\Z")  # an agent, a model or a task ref
_CURSOR = re.compile(r"^(\d{4}-\d{2}-\d{2}T[0-9:.]{8,12}Z)~([a-z0-9]{12})\Z")
COLUMNS = "id, env_id, ref, agent, model, visitor, visibility, status, scored, reward, created_at, finished_at"


class RolloutQueryError(ValueError):
    """A filter or page the admin asked for cannot be read; the message says what is allowed."""


@dataclass(frozen=True)
class RolloutQuery:
    who: str = ""  # a Hub handle, or "anonymous"
    env: str = ""
    task: str = ""
    agent: str = ""
    model: str = ""
    status: str = ""
    visibility: str = ""
    before: str = ""  # the cursor: created_at~id of the last row of the previous page
    size: int = DEFAULT_SIZE

    def filters(self) -> dict[str, str]:
        """The filters set, as query arguments (for links that keep them)."""
        names = ("who", "env", "task", "agent", "model", "status", "visibility")
        return {n: getattr(self, n) for n in names if getattr(self, n)}


def read_query(args) -> RolloutQuery:
    """The admin's filters from query arguments, each checked: a bad one raises RolloutQueryError."""
    values = {n: (args.get(n) or "").strip() for n in
              ("who", "env", "task", "agent", "model", "status", "visibility", "before")}
    who = values["who"].removeprefix("@")
    if who and who != ANONYMOUS and not NAME_PART.match(who):
        raise RolloutQueryError("`who` is a Hub handle (letters, digits, . _ -) or \"anonymous\".")
    if values["env"] and not ENV_ID.match(values["env"]):
        raise RolloutQueryError("`env` is an environment id such as org/name.")
    for name in ("task", "agent", "model"):
        if values[name] and not _NAME.match(values[name]):
            raise RolloutQueryError(f"`{name}` is at most 200 letters, digits and . _ : / @ + - characters.")
    if values["status"] and values["status"] not in STATUSES:
        raise RolloutQueryError(f"`status` is one of {', '.join(STATUSES)}.")
    if values["visibility"] and values["visibility"] not in VISIBILITIES:
        raise RolloutQueryError(f"`visibility` is one of {', '.join(VISIBILITIES)}.")
    if values["before"] and not _CURSOR.match(values["before"]):
        raise RolloutQueryError("`before` is the cursor an \"Older\" link carries; start again from the first page.")
    raw_size = (args.get("size") or str(DEFAULT_SIZE)).strip()
    if raw_size not in {str(s) for s in PAGE_SIZES}:
        raise RolloutQueryError(f"`size` is one of {', '.join(map(str, PAGE_SIZES))}.")
    return RolloutQuery(**{**values, "who": who}, size=int(raw_size))


def owner_label(visitor: str | None) -> str:
    """Who ran it, as the admin reads it: the Hub handle, an anonymous session, or the server."""
    if not visitor:
        return "the server (CLI)"
    if visitor.startswith("hf:"):
        return visitor[3:]
    return "anonymous session"


def _where(query: RolloutQuery) -> tuple[str, list]:
    clauses, args = [], []
    if query.who == ANONYMOUS:
        clauses.append("visitor LIKE 's:%'")
    elif query.who:
        clauses.append("visitor = ?")
        args.append(f"hf:{query.who}")
    for column, value in (("env_id", query.env), ("ref", query.task), ("agent", query.agent),
                          ("model", query.model), ("status", query.status), ("visibility", query.visibility)):
        if value:
            clauses.append(f"{column} = ?")
            args.append(value)
    if query.before:
        created, run_id = _CURSOR.match(query.before).groups()
        clauses.append("(created_at < ? OR (created_at = ? AND id < ?))")
        args += [created, created, run_id]
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", args


def list_rollouts(store: Store, query: RolloutQuery) -> tuple[list[dict], str | None]:
    """One page of runs, newest first, and the cursor of the next (older) page, or None at the end."""
    where, args = _where(query)
    with runs_db.reading(store) as db:
        rows = db.execute(f"SELECT {COLUMNS} FROM runs{where} ORDER BY created_at DESC, id DESC LIMIT ?",
                          (*args, query.size + 1)).fetchall()
    page = [{**dict(r), "who": owner_label(r["visitor"])} for r in rows[:query.size]]
    more = len(rows) > query.size
    return page, (f"{page[-1]['created_at']}~{page[-1]['id']}" if more and page else None)


class TakedownError(ValueError):
    """The run cannot be taken off (or put back); `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def set_withdrawn(store: Store, run_id: str, withdrawn: bool) -> RunRecord:
    """Take a public run off community (or put a withdrawn one back); returns the record as saved."""
    run = record.load(store, run_id)
    if run is None:
        raise TakedownError(404, "There is no run with that id.")
    if run.status not in DONE:
        # the job holds the record while it runs and writes it whole at the end: a change now would be lost
        raise TakedownError(409, "This rollout is still running; take it off community once it has ended.")
    wanted_from, wanted_to = ("public", WITHDRAWN) if withdrawn else (WITHDRAWN, "public")
    if run.visibility != wanted_from:
        raise TakedownError(409, "Only a public rollout can be taken off community." if withdrawn else
                            "Only a rollout taken off community can be put back.")
    run.visibility = wanted_to
    record.save(store, run)
    runs_db.upsert(store, run)
    return run

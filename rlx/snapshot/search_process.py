"""Who builds the word indexes and the environment search's sets (rlx/snapshot/search_tables.py): the build's own
process for a small catalog, a second process for a large one.

Tokenizing the tasks' text for tasks_fts is the largest single part of a build from nothing, and it needs nothing
but each task's title and brief in key order. So a large build starts a second process, sends it each batch of rows
as it writes them, and goes on with its own work on the other processor; once its rows and sort indexes are in, it
waits for the second process to finish and copies its tables in whole. An hourly build keeps the task word index
(rlx/snapshot/task_keys.py): its second process makes the environments' word index and their search sets instead,
the largest part left of the hourly build that needs nothing but the environments' rows. `INSERT INTO t SELECT *
FROM other.t` into an empty table of the same shape moves the stored rows without decoding them, a fraction of a
second for the 10× catalog's 45 MB.

A second process that fails fails the build (SearchProcessError); a build that fails or goes away ends its second
process (which also stops by itself when its input closes early), and the side file is removed either way.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import quote

from rlx.snapshot import search_tables
from rlx.snapshot.schema import FTS
from rlx.snapshot.task_keys import KEY_BASE

# Public environments from which a second process is used (with a second processor to run it on). Measured on
# the project's 2-core host, one hourly build after another: at today's Hub size (7,225) in place 1.01-1.08 s,
# with the second process 1.07-1.25 s (the two processes slow each other down more than the split saves); at ten
# times (72,250) with it 8.9-10.6 s, in place about 3 s more. Tests set it to force either way.
SECOND_PROCESS_FROM = 20_000
def shadow_tables(tables: tuple[str, ...]) -> tuple[str, ...]:
    """The tables in which FTS5 keeps the word indexes `tables`."""
    return tuple(f"{table}_{part}" for table in tables for part in ("data", "idx", "docsize", "config"))


class SearchProcessError(Exception):
    """The second process building the search tables failed."""


def search_builder(build_path: Path, envs: int, fresh: bool, renumbers_sets: bool = False) -> InPlace | SecondProcess:
    """The builder for a build writing `build_path` of `envs` public environments. A build that is not `fresh`
    (from nothing) kept the previous snapshot's task word index and brought it up to date itself
    (rlx/snapshot/task_keys.py): only the environments' is left to build. One that `renumbers_sets` (an hourly
    build: renumbered_sets.py) makes the environment search's sets itself."""
    large = envs >= SECOND_PROCESS_FROM and len(os.sched_getaffinity(0)) > 1
    if not fresh:
        # With no task to tokenize, the second process makes the environment search's sets too, unless the build
        # renumbers them (where a build from nothing makes them itself while the second process tokenizes, the
        # longer job: 1.5 s of CPU at 10x).
        return SecondProcess(build_path, ("envs_fts",), sets=not renumbers_sets) if large else InPlace(("envs_fts",))
    return SecondProcess(build_path, search_tables.FTS_TABLES, sets=False) if large \
        else InPlace(search_tables.FTS_TABLES)


class InPlace:
    """The search tables built from the rows in the build's own database, once they are all in."""

    fed = False
    makes_sets = False
    copied: tuple[str, ...] = ()

    def __init__(self, tables: tuple[str, ...]):
        self.tables = tables

    def add(self, envs, tasks) -> None:
        raise AssertionError("an in-place build reads its rows from the database")

    def finish(self, db: sqlite3.Connection, laps) -> dict | None:
        db.execute("BEGIN")
        search_tables.build_in_place(db, self.tables)
        db.execute("COMMIT")
        laps.lap("search")
        return None

    def close(self) -> None:
        pass


class SecondProcess:
    """rlx/snapshot/search_tables.py run as a program, writing `<build file>.search` beside the build's file."""

    fed = True

    def __init__(self, build_path: Path, tables: tuple[str, ...], sets: bool):
        self.makes_sets = sets
        # The tables copied in at the end: the word indexes' own, and env_sets when it makes the sets.
        self.copied = (*shadow_tables(tables), *(("env_sets",) if sets else ()))
        self.path = build_path.with_name(build_path.name + ".search")
        self.path.unlink(missing_ok=True)
        # -P: the script's folder (rlx/snapshot) is not put on the import path, where its modules would shadow others.
        self.process = subprocess.Popen([sys.executable, "-P", search_tables.__file__], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)
        self.outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.broken = False
        self.writer = threading.Thread(target=self._write, name="search-tables-feed", daemon=True)
        self.writer.start()
        fts = tuple(statement for statement in FTS if any(f" {table} " in statement for table in tables))
        self._send(("start", str(self.path), fts, tables, KEY_BASE, sets))

    def add(self, envs: list[tuple], tasks: list[tuple], tags: list[tuple]) -> None:
        """One batch of rows, in the order the build wrote them (search_tables.FedBuild.add says what each holds)."""
        self._send(("add", envs, tasks, tags))

    def _send(self, message: tuple) -> None:
        """Queue a message for the writer thread: the build never waits on the pipe while the other process is
        busy with an earlier batch."""
        if self.broken:
            raise self._failed()
        self.outbox.put(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def _write(self) -> None:
        while (data := self.outbox.get()) is not None:
            try:
                self.process.stdin.write(data)
                self.process.stdin.flush()
            except (BrokenPipeError, ValueError):  # the process died, or close() closed its pipe
                self.broken = True
                return

    def finish(self, db: sqlite3.Connection, laps) -> dict:
        """Wait for the tables, then copy them into `db` (outside any transaction); the second process's CPU
        seconds and peak resident bytes."""
        self._send(("finish",))
        self._stop_writer()
        said = self.process.stdout.read()  # its peak memory, printed as it ends
        cpu = self._wait()
        if self.process.returncode != 0:
            raise self._failed()
        laps.lap("search_wait")
        db.execute("ATTACH ? AS search", (f"file:{quote(str(self.path.resolve()))}?mode=ro",))
        db.execute("BEGIN")
        for table in self.copied:
            if table == "env_sets":
                db.execute(search_tables.TABLE)
            else:  # FTS5 wrote each table's first rows when it was created here
                db.execute(f"DELETE FROM main.{table}")
            db.execute(f"INSERT INTO main.{table} SELECT * FROM search.{table}")
        db.execute("COMMIT")
        db.execute("DETACH search")
        laps.lap("search_copy")
        return {"cpu_seconds": round(cpu, 3), "peak_rss": int(said)}

    def _wait(self) -> float:
        """Reap the process; its CPU seconds (Popen.wait does not give them)."""
        try:
            _, status, usage = os.wait4(self.process.pid, 0)
        except ChildProcessError:  # reaped already: gevent's patched subprocess reaps its children itself
            self.process.wait()
            return 0.0
        self.process.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_utime + usage.ru_stime

    def _failed(self) -> SearchProcessError:
        if self.process.returncode is None:
            self._stop_writer()
            self._wait()
        return SearchProcessError(f"the search tables' process failed (exit status {self.process.returncode})")

    def _stop_writer(self) -> None:
        """Let the writer send what is queued, then close the pipe (the process reads its end)."""
        self.outbox.put(None)
        self.writer.join()
        with contextlib.suppress(OSError):  # a pipe whose reader died
            self.process.stdin.close()

    def close(self) -> None:
        """End the process if it still runs, and remove its file."""
        if self.process.returncode is None:
            self.process.kill()
            self._stop_writer()
            self._wait()
        self.process.stdout.close()
        self.path.unlink(missing_ok=True)

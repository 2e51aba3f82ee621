"""The catalog snapshot: built offline into one SQLite file, published behind a pointer, read immutable.

build.py writes the file (row_sources.py and rowfiles.py give it each dataset's rows; search_tables.py makes the
search tables, in a second process for a large catalog: search_process.py), publish.py puts it in the store
(database first, then the pointer), reader.py follows the pointer in each app process (pointer.py checks its
fields, local_copy.py copies and checks the database it names, generation.py swaps it in and lends out
connections), queries.py and task_search.py answer the search API from it (task_terms.py lists the task
index's words for it). `rlx.snapshot.publish` is the module (its function is
`rlx.snapshot.publish.publish`).
"""

from rlx.snapshot.build import build_snapshot, env_id_of, in_process_builder
from rlx.snapshot.publish import PublishError, prune
from rlx.snapshot.queries import QueryError, search_envs, trending_rank
from rlx.snapshot.reader import SnapshotReader, SnapshotUnavailable
from rlx.snapshot.row_sources import StoredIndexes
from rlx.snapshot.schema import SCHEMA, pointer_name
from rlx.snapshot.task_search import search_tasks

__all__ = ["SCHEMA", "PublishError", "QueryError", "SnapshotReader", "SnapshotUnavailable", "StoredIndexes",
           "build_snapshot", "env_id_of", "in_process_builder", "pointer_name", "prune", "search_envs",
           "search_tasks", "trending_rank"]

"""The catalog snapshot: built offline into one SQLite file, published behind a pointer, read immutable."""

from rlx.snapshot.build import StoredIndexes, build_snapshot, env_id_of, in_process_builder
from rlx.snapshot.publish import PublishError, prune, publish
from rlx.snapshot.queries import QueryError, search_envs, search_tasks, trending_rank
from rlx.snapshot.reader import SnapshotReader, SnapshotUnavailable
from rlx.snapshot.schema import SCHEMA, pointer_name

__all__ = ["SCHEMA", "PublishError", "QueryError", "SnapshotReader", "SnapshotUnavailable", "StoredIndexes",
           "build_snapshot", "env_id_of", "in_process_builder", "pointer_name", "prune", "publish", "search_envs",
           "search_tasks", "trending_rank"]

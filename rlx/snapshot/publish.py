"""Publishing a built snapshot to the store: the database first, checked where it landed, then the pointer.

Readers only ever follow the pointer, so a run that fails before writing it publishes nothing, and a rerun
simply publishes another whole snapshot. Old databases are pruned after the pointer moves.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime, timedelta, timezone
from pathlib import Path

from rlx.snapshot.schema import SCHEMA, open_immutable, pointer_name, read_meta
from rlx.store import Store, copy_atomic, read_json, remove_abandoned_temps, write_json

log = logging.getLogger("rlx.snapshot")

KEEP = 5


class PublishError(Exception):
    """The snapshot could not be published; the pointer was left as it was."""


def publish(local_db: Path, store: Store, now: datetime | None = None) -> dict:
    """Copy `local_db` into the store, verify the copy, point LATEST.v<SCHEMA>.json at it, prune old copies."""
    local_db = Path(local_db)
    meta = _local_meta(local_db)
    if meta["schema"] != SCHEMA:
        raise PublishError(f"{local_db.name} is schema {meta['schema']}; this code publishes schema {SCHEMA}.")
    digest, size = sha256_of(local_db)
    folder = store.snapshots_dir
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / _free_name(folder, now or datetime.now(timezone.utc))
    copy_atomic(local_db, target)
    if sha256_of(target) != (digest, size):  # the store must hold exactly what was built
        target.unlink(missing_ok=True)
        raise PublishError(f"{target.name} did not land whole in {folder}; the pointer was not moved.")
    pointer = {"db": target.name, "sha256": digest, "size": size, "built_at": meta["built_at"],
               "counts": meta["counts"], "schema": SCHEMA}
    write_json(folder / pointer_name(SCHEMA), pointer)
    return {**pointer, "pointer": pointer_name(SCHEMA), "pruned": prune(store)}


def copy_published(store: Store, target: Path) -> Path | None:
    """A local copy of the snapshot the pointer names, checked against the pointer's size and sha256 (the next
    build copies its unchanged rows from it). None when there is none, or the copy does not match."""
    try:
        pointer = read_json(store.snapshots_dir / pointer_name(SCHEMA))
        if pointer is None:
            return None  # nothing published yet (or only under another schema)
        source = store.snapshots_dir / pointer["db"]
        if Path(pointer["db"]).name != pointer["db"] or not source.is_file():
            return None
        copy_atomic(source, target, durable=False)  # scratch, checked against the pointer just below
        if sha256_of(target) != (pointer["sha256"], pointer["size"]):
            log.warning("snapshot.previous_mismatch db=%s: building without it", pointer["db"])
            target.unlink(missing_ok=True)
            return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("snapshot.previous_unreadable error=%s: building without it", exc)
        target.unlink(missing_ok=True)
        return None
    return target


def prune(store: Store, keep: int = KEEP) -> list[str]:
    """Remove all but the newest `keep` databases, sparing any that a pointer of any schema names."""
    folder = store.snapshots_dir
    if not folder.is_dir():
        return []
    spared = pointed_names(folder)
    newest_first = sorted((p.name for p in folder.glob("catalog-*.db")), reverse=True)
    removed = []
    for name in newest_first[keep:]:
        if name not in spared:
            (folder / name).unlink(missing_ok=True)
            removed.append(name)
    remove_abandoned_temps(folder)  # copies by publishers that died before their rename
    return removed


def pointed_names(folder: Path) -> set[str]:
    """Every database name that some pointer (any schema) currently names."""
    names = set()
    for pointer in folder.glob("LATEST.v*.json"):
        try:
            value = read_json(pointer)
        except (OSError, ValueError):
            continue
        if isinstance(value, dict) and isinstance(value.get("db"), str):
            names.add(value["db"])
    return names


def sha256_of(path: Path) -> tuple[str, int]:
    """(hex sha256, size in bytes) of a file, read in chunks."""
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _local_meta(path: Path) -> dict:
    if not path.is_file():
        raise PublishError(f"there is no snapshot at {path}.")
    db = open_immutable(path)
    try:
        return read_meta(db)
    except Exception as exc:
        raise PublishError(f"{path.name} is not a snapshot this code can publish ({exc}).") from None
    finally:
        db.close()


def _free_name(folder: Path, now: datetime) -> str:
    # Fixed-width UTC timestamps sort by name in time order, which is what prune relies on.
    moment = now.astimezone(timezone.utc)
    while True:
        name = f"catalog-{moment:%Y%m%dT%H%M%S.%f}Z.db"
        if not (folder / name).exists():
            return name
        moment += timedelta(microseconds=1)

"""A local file for each data file: the folder source's own file, or a copy in the store (downloaded from the
source, or gunzipped), written once per revision, atomically, within a size bound."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from rlx.adapters.env import Env
from rlx.adapters.rows.readers import DataFileError
from rlx.adapters.paths import safe_relpath
from rlx.store.atomic_files import atomic_file

MAX_DOWNLOAD = 512 * 1024 * 1024  # a data file larger than this is not copied from a remote source
MAX_GUNZIPPED = 1024 * 1024 * 1024  # nor unpacked past this (a gzip bomb stops here, with a message)


def local_file(env: Env, path: str) -> Path:
    """A local path holding the uncompressed bytes of the data file `path`."""
    rel = safe_relpath(path)
    if not rel:
        raise DataFileError(f"{path!r} is not a path inside the dataset.")
    finder = getattr(env.source, "local_path", None)
    if finder is not None:
        raw = finder(env.repo_type, env.id, rel)
    else:
        raw = _cached_copy(env, rel)
    if not rel.lower().endswith(".gz"):
        return raw
    target = env.store.rows_cache_dir(env.id, env.revision) / rel.removesuffix(".gz").removesuffix(".GZ")
    if not target.exists():
        _gunzip(raw, target, rel)
    return target


def _cached_copy(env: Env, rel: str) -> Path:
    target = env.store.rows_cache_dir(env.id, env.revision) / "raw" / rel
    if not target.exists():
        data = env.source.read_file(env.repo_type, env.id, rel, revision=env.revision, token=env.token,
                                    max_bytes=MAX_DOWNLOAD)
        with atomic_file(target) as out:
            out.write(data)
    return target


def _gunzip(raw: Path, target: Path, rel: str) -> None:
    written = 0
    try:
        with gzip.open(raw, "rb") as src, atomic_file(target) as out:
            while chunk := src.read(1 << 20):
                written += len(chunk)
                if written > MAX_GUNZIPPED:
                    raise DataFileError(f"{rel} unpacks to more than {MAX_GUNZIPPED // (1024 ** 3)} GB; "
                                        f"it is not read.")
                out.write(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        raise DataFileError(f"{rel} is not a readable gzip file ({exc}).") from None

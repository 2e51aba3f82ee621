"""Copying files out of a running sandbox by reading them from the host side, never through a program inside it.

The sandbox controls every byte and every name under its root, and may have replaced any of its own programs
(`tar`, `cat`), so nothing it prints is unpacked and nothing it names is followed. We open its root through
/proc/<init>/root and walk down one name at a time with O_NOFOLLOW: a symbolic link, a device, a FIFO or a socket
is skipped, never opened; only regular files are copied, each name a single component written under the
destination we chose. What is copied is bounded in bytes actually written (not compressed), in files and in
depth, so a 2 GB output or a million empty files stays in the sandbox.

Written by hand because no library we found walks a tree relative to directory file descriptors with these
refusals (shutil.copytree follows or copies links; tarfile is the very thing we avoid here).
"""

from __future__ import annotations

import fnmatch
import json
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MAX_BYTES = 256 * 1024 * 1024  # written to the store per copy
MAX_FILES = 10_000
MAX_DEPTH = 32
_CHUNK = 1024 * 1024
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO swapped in between the look and the open must not hang the worker.
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class SandboxFileError(RuntimeError):
    """A path asked for is not a plain folder or file inside the sandbox; the message says which, in a sentence."""


@dataclass
class Copied:
    """What a copy wrote, and what it left in the sandbox (names relative to the source, with the reason)."""

    files: int = 0
    bytes: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        reasons = sorted({reason for _, reason in self.skipped})
        return f"{len(self.skipped)} entries not copied out of the sandbox ({'; '.join(reasons)})"


def copy_dir_out(root: str, source: str, target: Path, *, exclude: tuple[str, ...] = (),
                 include=None, max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES) -> Copied:
    """Copy the regular files under `source` (a path inside the sandbox) into the host folder `target`.

    `include(relative_path) -> bool` keeps only some files; `exclude` holds glob patterns matched against the
    relative path and the name alone. Raises SandboxFileError when `source` is not a folder."""
    copied = Copied()
    target.mkdir(parents=True, exist_ok=True)
    fd = _open_dir(root, source)
    try:
        _walk(fd, PurePosixPath(), target, copied, exclude, include, max_bytes, max_files, 0)
    finally:
        os.close(fd)
    return copied


def copy_file_out(root: str, source: str, target: Path, *, max_bytes: int = MAX_BYTES) -> int:
    """Copy one regular file out of the sandbox; the bytes written. Raises SandboxFileError otherwise."""
    parts = _parts(source)
    if not parts:
        raise SandboxFileError(f"{source} is not a file in the sandbox.")
    parent = _open_dir(root, str(PurePosixPath("/", *parts[:-1])))
    try:
        written = _copy_regular(parent, parts[-1], target, max_bytes)
    finally:
        os.close(parent)
    if written is None:
        raise SandboxFileError(f"{source} is not a regular file in the sandbox, or is larger than "
                               f"{max_bytes // (1024 * 1024)} MiB.")
    return written


# --- walking ---------------------------------------------------------------------------------------------------


def live_text(environment, source: str) -> str | None:
    """A file of a running sandbox, read from the host side (links not followed), for an agent's live steps; None
    when the sandbox is not running or the file is not there (yet)."""
    sandbox = getattr(environment, "_sandbox", None)
    if sandbox is None or not sandbox.running:
        return None
    with tempfile.TemporaryDirectory(prefix="rlx-live-") as folder:
        copy = Path(folder) / "live"
        try:
            copy_file_out(sandbox.root, source, copy)
            return copy.read_text(errors="replace")
        except Exception:  # not written yet: the next look finds it
            return None


def json_lines(text: str) -> list:
    """The JSON values of a log written one per line; a line that is not one (the program's own messages, or a
    line still being written) is left out."""
    values = []
    for line in text.splitlines():
        try:
            values.append(json.loads(line))
        except ValueError:
            continue
    return values


def _parts(path: str) -> list[str]:
    parts = [p for p in PurePosixPath("/", path).parts[1:] if p not in ("", ".")]
    if ".." in parts:
        raise SandboxFileError(f"{path} leaves the sandbox's root.")
    return parts


def _open_dir(root: str, path: str) -> int:
    """A descriptor of the folder `path` inside the sandbox, reached without following any link on the way."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # /proc/<pid>/root: ours to follow
    try:
        for name in _parts(path):
            next_fd = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = next_fd
    except OSError:
        os.close(fd)
        raise SandboxFileError(f"{path} is not a folder in the sandbox (or passes through a link).") from None
    return fd


def _walk(fd: int, relative: PurePosixPath, target: Path, copied: Copied, exclude, include,
          max_bytes: int, max_files: int, depth: int) -> None:
    try:
        names = sorted(os.listdir(fd))
    except OSError:
        copied.skipped.append((str(relative), "unreadable folder"))
        return
    for name in names:
        path = relative / name
        if excluded(path, exclude):
            continue
        try:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue  # gone since the listing
        if stat.S_ISDIR(info.st_mode):
            if depth + 1 >= MAX_DEPTH:
                copied.skipped.append((str(path), f"deeper than {MAX_DEPTH} folders"))
                continue
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                copied.skipped.append((str(path), "replaced while copying"))
                continue
            try:
                _walk(child, path, target, copied, exclude, include, max_bytes, max_files, depth + 1)
            finally:
                os.close(child)
        elif not stat.S_ISREG(info.st_mode):
            copied.skipped.append((str(path), "not a regular file (a link, device, FIFO or socket)"))
        elif include is not None and not include(str(path)):
            continue
        elif copied.files >= max_files:
            copied.skipped.append((str(path), f"more than {max_files} files"))
        else:
            destination = target.joinpath(*path.parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            written = _copy_regular(fd, name, destination, max_bytes - copied.bytes)
            if written is None:
                copied.skipped.append((str(path), f"past the {max_bytes // (1024 * 1024)} MiB copied out, or "
                                                  "not a regular file when opened"))
            else:
                copied.files += 1
                copied.bytes += written


def excluded(path: PurePosixPath, patterns) -> bool:
    text = str(path)
    return any(fnmatch.fnmatchcase(text, p.removeprefix("./")) or fnmatch.fnmatchcase(path.name, p)
               for p in patterns)


def _copy_regular(dir_fd: int, name: str, destination: Path, budget: int) -> int | None:
    """Copy the regular file `name` if it fits in `budget` bytes (counted as read, whatever stat says); the bytes
    written, or None (nothing written) when it is not a regular file or does not fit."""
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        os.set_blocking(fd, True)
        return write_bounded(lambda size: os.read(fd, size), destination, budget)
    finally:
        os.close(fd)


def write_bounded(read, destination: Path, budget: int) -> int | None:
    """`read(size) -> bytes` copied to `destination` if it gives at most `budget` bytes; the bytes written, or
    None (nothing written). Temp then rename, so a file over budget leaves no half-copy behind, the store never
    sees a partial one, and a link at `destination` is replaced, never followed."""
    handle, temporary = tempfile.mkstemp(dir=destination.parent, prefix=".copy-")
    written = 0
    try:
        with os.fdopen(handle, "wb") as out:
            while chunk := read(_CHUNK):
                written += len(chunk)
                if written > budget:
                    raise _OverBudget()
                out.write(chunk)
        os.replace(temporary, destination)
        return written
    except _OverBudget:
        os.unlink(temporary)
        return None
    except BaseException:
        os.unlink(temporary)
        raise


class _OverBudget(Exception):
    pass


__all__ = ["MAX_BYTES", "Copied", "SandboxFileError", "copy_dir_out", "copy_file_out", "excluded", "write_bounded"]

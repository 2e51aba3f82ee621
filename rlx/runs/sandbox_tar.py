"""Unpacking an archive a remote sandbox made (an HF Sandbox's `tar` of its /logs), trusting none of it.

A local sandbox's files are read from the host side (rlx/runs/sandbox_files.py); a remote one can only hand us
bytes, made by a `tar` the task may have replaced. So the archive is read here member by member (tarfile only
parses headers and streams members' bytes, its extract functions, whose `data` filter this Python 3.12.1 lets a
symbolic-link chain past, are never called), and only regular files are written: no link of any kind, no device,
FIFO or socket; no name that is absolute or climbs with `..`; folders made one name at a time, never through a
link. Bytes are counted as written, not as compressed, with the same caps as the local copy (256 MiB, 10,000
files, 32 folders deep); what is over stays out, and `Copied.skipped` says what and why.
"""

from __future__ import annotations

import os
import stat
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from rlx.adapters.paths import safe_relpath
from rlx.runs.sandbox_files import MAX_BYTES, MAX_DEPTH, MAX_FILES, Copied, excluded, write_bounded

MAX_ENTRIES = 4 * MAX_FILES  # headers looked at, whatever they are: a flood of links or empty names stops here


def unpack_sandbox_tar(archive: Path, target: Path, *, exclude: tuple[str, ...] = (), include=None,
                       max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES) -> Copied:
    """Write the regular files of the tar (plain or compressed) at `archive` under `target`, within the caps."""
    copied = Copied()
    target.mkdir(parents=True, exist_ok=True)
    seen = 0
    try:
        with tarfile.open(archive, mode="r|*") as tar:  # a stream: one member at a time, never seeking back
            for member in tar:
                seen += 1
                if seen > MAX_ENTRIES:
                    copied.skipped.append(("", f"more than {MAX_ENTRIES} entries in the archive"))
                    break
                _one(tar, member, target, copied, exclude, include, max_bytes, max_files)
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        copied.skipped.append(("", "the archive is damaged past this point"))
    return copied


def _one(tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path, copied: Copied, exclude, include,
         max_bytes: int, max_files: int) -> None:
    name = safe_relpath(member.name)
    if not name:
        if name is None:
            copied.skipped.append((member.name[:200], "its name leaves the folder (absolute, or `..`)"))
        return
    path = PurePosixPath(name)
    if member.isdir() or excluded(path, exclude):
        return  # folders are made for the files in them
    if not member.isreg():
        copied.skipped.append((name, "not a regular file (a link, device, FIFO or socket)"))
    elif len(path.parts) > MAX_DEPTH:
        copied.skipped.append((name, f"deeper than {MAX_DEPTH} folders"))
    elif include is not None and not include(name):
        return
    elif copied.files >= max_files:
        copied.skipped.append((name, f"more than {max_files} files"))
    else:
        folder = _folder(target, path.parts[:-1])
        if folder is None:
            copied.skipped.append((name, "its folder is not a plain folder"))
            return
        source = tar.extractfile(member)
        written = write_bounded(source.read, folder / path.name, max_bytes - copied.bytes) if source else None
        if written is None:
            copied.skipped.append((name, f"past the {max_bytes // (1024 * 1024)} MiB copied out"))
        else:
            copied.files += 1
            copied.bytes += written


def _folder(target: Path, parts: tuple[str, ...]) -> Path | None:
    """`target/parts...`, made one name at a time; None when any of them exists as anything but a real folder."""
    folder = target
    for part in parts:
        folder = folder / part
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            folder.mkdir()
            continue
        if not stat.S_ISDIR(info.st_mode):
            return None
    return folder

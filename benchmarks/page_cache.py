"""Keeping the OS page cache's accidents out of the timed figures.

This VM's kernel now and then drops the whole page cache ("idle-reclaim: drop_caches: 1" in dmesg). A snapshot
whose pages were dropped is read from disk again, page by page, while the measurement runs: the 10x snapshot's
files evicted (posix_fadvise DONTNEED) just before a 5 s run of the mix made its p50 1.5 to 1.7 times and its p99
1.6 to 2 times what they were warm, which is the disk's speed, not the app's. So every timed measurement here reads
the kernel's counters (/proc/vmstat) before and after; one during which the page cache was dropped is warmed again
and repeated, at most MAX_REPEATS times, and what happened is kept beside its figures (`PAGE_CACHE_KEY`) for the
report to say.

Warming reads the parts of the files that mincore says are not in the page cache (on this VM a few percent of a
file leave it within seconds even with memory to spare, no drop counted); what came from the disk is counted
(/proc/self/io read_bytes), so the report can say how much had to be read in again.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, TypeVar

VMSTAT = Path("/proc/vmstat")
SELF_IO = Path("/proc/self/io")
COUNTERS = ("drop_pagecache", "pgmajfault", "workingset_refault_file")
MAX_REPEATS = 2  # a measurement is taken at most three times; the last is kept whatever happened during it
PAGE_CACHE_KEY = "page_cache"
_CHUNK = 4 << 20

T = TypeVar("T")


def read_counters(path: Path = VMSTAT) -> dict[str, int]:
    """The page-cache counters of `path` (/proc/vmstat); those the kernel lacks are left out ({} off Linux)."""
    try:
        text = path.read_text()
    except OSError:
        return {}
    values = dict(line.split(None, 1) for line in text.splitlines() if " " in line)
    return {name: int(values[name]) for name in COUNTERS if name in values}


def _disk_read_bytes(path: Path = SELF_IO) -> int | None:
    """Bytes this process has had read from storage (not from the page cache); None where the kernel hides it."""
    try:
        fields = dict(line.split(": ", 1) for line in path.read_text().splitlines())
        return int(fields["read_bytes"])
    except (OSError, KeyError, ValueError):
        return None


def _files(paths: Iterable[Path]) -> list[Path]:
    """The paths, a folder standing for the files in it now (each app process reads a copy of its own)."""
    out = []
    for path in map(Path, paths):
        if path.is_dir():
            out += sorted(child for child in path.iterdir() if child.is_file())
        elif path.exists():
            out.append(path)
    return out


def missing_ranges(path: Path) -> list[tuple[int, int]] | None:
    """The (offset, length) ranges of `path` whose pages are not in the page cache now (mincore over a mapping of
    the file, which reads nothing); None where the C library has no mincore."""
    size = os.path.getsize(path)
    if size == 0:
        return []
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                              ctypes.c_long]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    except (OSError, AttributeError):
        return None
    page = os.sysconf("SC_PAGE_SIZE")
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if address is None or address == ctypes.c_void_p(-1).value:
            return None
        try:
            vector = ctypes.create_string_buffer((size + page - 1) // page)
            if libc.mincore(address, size, vector) != 0:
                return None
            flags = vector.raw
        finally:
            libc.munmap(address, size)
    finally:
        os.close(fd)
    ranges, start = [], None
    for index, flag in enumerate(flags):
        if not flag & 1 and start is None:
            start = index
        elif flag & 1 and start is not None:
            ranges.append((start * page, (index - start) * page))
            start = None
    if start is not None:
        ranges.append((start * page, size - start * page))
    return ranges


def warm_files(paths: Iterable[Path],
               missing: Callable[[Path], list[tuple[int, int]] | None] = missing_ranges) -> dict:
    """Read the parts of each file that are not in the page cache (a folder: every file in it; the whole file
    where the kernel cannot say); returns the MB read and how many of them came from disk (None when the kernel
    does not say)."""
    before, total = _disk_read_bytes(), 0
    for file in _files(paths):
        ranges = missing(file)
        with open(file, "rb", buffering=0) as fh:
            for offset, length in ranges if ranges is not None else [(0, file.stat().st_size)]:
                while length > 0:
                    n = len(os.pread(fh.fileno(), min(length, _CHUNK), offset))
                    if not n:
                        break
                    total, offset, length = total + n, offset + n, length - n
    after = _disk_read_bytes()
    from_disk = None if before is None or after is None else (after - before) / 1e6
    return {"mb": round(total / 1e6, 1), "from_disk_mb": None if from_disk is None else round(from_disk, 1)}


@dataclass
class PageCache:
    """The files a measurement reads (the snapshot, and the folder of the copies the app's processes serve), and
    the guard around each measurement of them.

    `read` and `warm` are the kernel's counters and the warm-up; tests give stand-ins."""

    files: tuple[Path, ...] = ()
    read: Callable[[], dict[str, int]] = read_counters
    warm: Callable[[tuple[Path, ...]], dict] = warm_files
    max_repeats: int = MAX_REPEATS

    def measure(self, work: Callable[[], T]) -> tuple[T, dict]:
        """`work()` with the files warmed first; repeated (warmed again) while the page cache was dropped during
        it, at most max_repeats times. Returns its last result and what happened: each attempt's counter changes,
        how often it was repeated, and whether the kept attempt ran with no drop ("clean")."""
        warmed = [self.warm(self.files)] if self.files else []
        attempts: list[dict[str, int]] = []
        while True:
            before = self.read()
            result = work()
            after = self.read()
            attempts.append({name: after[name] - before[name] for name in after if name in before})
            if not attempts[-1].get("drop_pagecache") or len(attempts) > self.max_repeats:
                break
            if self.files:
                warmed.append(self.warm(self.files))
        return result, {"attempts": attempts, "repeated": len(attempts) - 1,
                        "clean": not attempts[-1].get("drop_pagecache"), "warmed": warmed}


# ---------------------------------------------------------------------------------------------- report


def guarded(results, where: str = "") -> list[tuple[str, dict]]:
    """Every guarded measurement's note in `results` (nested dicts and lists), with where it is
    ("scaling / 10× / app / per_query / Q7-likes")."""
    found: list[tuple[str, dict]] = []
    if isinstance(results, dict):
        note = results.get(PAGE_CACHE_KEY)
        if isinstance(note, dict):
            found.append((where or "the run", note))
        for key, value in results.items():
            if key != PAGE_CACHE_KEY:
                found += guarded(value, f"{where} / {key}" if where else str(key))
    elif isinstance(results, list):
        for i, value in enumerate(results):
            label = f"{value['connections']} conn." if isinstance(value, dict) and "connections" in value else i + 1
            found += guarded(value, f"{where} / {label}")
    return found


def incidents(results) -> list[tuple[str, dict]]:
    """The guarded measurements that were repeated or ended with the page cache dropped during them."""
    return [(where, note) for where, note in guarded(results) if note.get("repeated") or not note.get("clean", True)]


def render(r: dict) -> str | None:
    """One paragraph: whether any timed measurement met a dropped page cache, and what was done about it (None
    when no measurement was guarded)."""
    notes = guarded(r)
    if not notes:
        return None
    found = incidents(r)
    head = ("## The page cache\n\nEach timed search measurement (per query, the mix, in process and over HTTP) reads "
            "the kernel's page-cache counters (/proc/vmstat `drop_pagecache`, `pgmajfault`) before and after, with "
            "the snapshot's pages that mincore finds missing from the page cache read first; one during which "
            f"the kernel dropped the page cache is warmed again and repeated (at most {MAX_REPEATS} times).")
    # Pages leave the cache without a drop too (none counted): the warm-up then reads them from disk again.
    disk = sum(w.get("from_disk_mb") or 0 for _, note in notes for w in note.get("warmed", []))
    disk_note = (f" Over {len(notes)} guarded measurements the warm-ups read {disk:,.0f} MB from disk (pages of "
                 "the file had left the page cache between them)." if disk >= 1 else "")
    if not found:
        return head + " No measurement of this run met a dropped page cache." + disk_note + "\n"
    lines = []
    for where, note in found:
        repeats = note.get("repeated", 0)
        faults = [a.get("pgmajfault") for a in note.get("attempts", [])]
        said = (f"repeated {repeats} time{'s' if repeats != 1 else ''}" if repeats else "not repeated")
        kept = "the kept run was clean" if note.get("clean") else "**the cache was dropped during the kept run too**"
        lines.append(f"- {where}: {said}, {kept} (major faults per attempt: "
                     f"{', '.join('—' if f is None else f'{f:,}' for f in faults)})")
    return head + disk_note + " Measurements that met a drop:\n\n" + "\n".join(lines) + "\n"

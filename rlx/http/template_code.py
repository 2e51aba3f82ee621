"""Compiled templates shared by every app a process makes.

Each Flask app has its own Jinja environment, and each environment compiles a template the first time it renders
it: some 25 ms for the environment page. A process makes one app in production, but the test suite and the
in-process benchmarks make one per test, and recompiled the same sixty templates some 880 times in 145 tests. Jinja
keys what it caches by the template's name and the checksum of its source, so an edited template is compiled again;
every app of ours builds its environment with the same options, which is what sharing the code needs.
"""

from __future__ import annotations

from threading import Lock

from jinja2.bccache import BytecodeCache, Bucket


class ProcessTemplateCode(BytecodeCache):
    """Keeps the code objects themselves (immutable, so safe to share) rather than marshalled bytes."""

    def __init__(self):
        self._code: dict[str, tuple[str, object]] = {}
        self._lock = Lock()

    def load_bytecode(self, bucket: Bucket) -> None:
        checksum, code = self._code.get(bucket.key, (None, None))
        if checksum == bucket.checksum:
            bucket.code = code

    def dump_bytecode(self, bucket: Bucket) -> None:
        with self._lock:
            self._code[bucket.key] = (bucket.checksum, bucket.code)


PROCESS_TEMPLATE_CODE = ProcessTemplateCode()

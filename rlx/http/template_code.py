"""Compiled templates shared by every app a process makes.

Each Flask app has its own Jinja environment, and each environment compiles a template the first time it renders
it: the 68 templates take 0.9 s of CPU in all, the home page alone 70 ms. A process makes one app in production,
but the test suite and the in-process benchmarks make one per test (145 tests of tests/web compiled 882 templates).
Jinja keys what it caches by the template's name and the checksum of its source, so an edited template is compiled
again; every app of ours builds its environment with the same options, which is what sharing the code needs.
"""

from __future__ import annotations

from jinja2.bccache import BytecodeCache, Bucket


class ProcessTemplateCode(BytecodeCache):
    """Keeps the code objects themselves (immutable, so safe to share) rather than marshalled bytes."""

    def __init__(self):
        self._code: dict[str, tuple[str, object]] = {}  # one assignment per dump: atomic, no lock needed

    def load_bytecode(self, bucket: Bucket) -> None:
        checksum, code = self._code.get(bucket.key, (None, None))
        if checksum == bucket.checksum:
            bucket.code = code

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = (bucket.checksum, bucket.code)


PROCESS_TEMPLATE_CODE = ProcessTemplateCode()

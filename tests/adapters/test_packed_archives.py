"""Packed task folders are outside data: every archive attack is refused on that task's page with the rule it
broke, nothing is written anywhere, and the rest of the dataset still reads. One fixture per rule, built here:
a zip bomb, a gzip bomb, a tar with `../`, an absolute path, a drive letter, a symlink, a hard link, a device,
too many members, a member that lies about its size, a duplicate path, garbage base64, zero bytes, a cell that
is a number, bytes that are no archive, a symbolic-link chain past PATH_MAX (which this Python's tarfile filter
lets out), a member declaring 8 GiB of zeros."""

import base64
import io
import os
import random
import subprocess
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rlx import create_app
from rlx.adapters import archives
from tests.conftest import index_now
from tests.runs.test_sandbox_passage import chain_archive

ORG = "attacks"
TASK_TOML = b'version = "1.0"\n[metadata]\ndifficulty = "easy"\n[environment]\ndocker_image = "python:3.12-slim"\n'


def tar_bytes(members, gz=True) -> bytes:
    """members: [(name, bytes | None, type)]: None content for links, devices and folders."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz" if gz else "w") as archive:
        for name, data, kind in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                info.linkname = "/etc/passwd"
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return raw.getvalue()


def zip_bytes(members, symlink: str | None = None) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (0o120777 << 16)
            archive.writestr(info, "/etc/passwd")
    return raw.getvalue()


def good_task(marker: str) -> list:
    return [("task.toml", TASK_TOML, tarfile.REGTYPE),
            ("instruction.md", f"Print the word {marker} backwards.".encode(), tarfile.REGTYPE),
            ("tests/test.sh", b"#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n", tarfile.REGTYPE),
            ("solution/solve.sh", b"echo ZX-ANSWER-7000\n", tarfile.REGTYPE)]


def lying_zip() -> bytes:
    """A zip whose member declares 10 bytes but inflates to a megabyte (headers can lie)."""
    raw = bytearray(zip_bytes([("task.toml", b"0" * 1_000_000)]))
    local = raw.index(b"PK\x03\x04")
    raw[local + 22:local + 26] = (10).to_bytes(4, "little")  # the local header's size
    central = raw.index(b"PK\x01\x02")
    raw[central + 24:central + 28] = (10).to_bytes(4, "little")  # the central directory's size
    return bytes(raw)


def huge_zero_member() -> bytes:
    """A 10 KB tar (GNU tar's own, --sparse) holding one member of 8 GiB of zeros, as a task's `truncate` makes."""
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "big.bin"), "wb") as handle:
            handle.truncate(8 << 30)
        subprocess.run(["tar", "--sparse", "-cf", "big.tar", "big.bin"], cwd=folder, check=True)
        return Path(folder, "big.tar").read_bytes()


ATTACKS = {  # name -> (cell, rule, words the page shows)
    "zip-bomb": (zip_bytes([("task.toml", TASK_TOML), ("filler.bin", b"\0" * (60 * 2**20))]), "bomb",
                 "compression bomb"),
    "gzip-bomb": (tar_bytes([("task.toml", TASK_TOML, tarfile.REGTYPE),
                             ("big.bin", b"\0" * (70 * 2**20), tarfile.REGTYPE)]), "bomb", "compression bomb"),
    "dotdot": (tar_bytes([*good_task("dotdot"), ("../../evil.sh", b"rm -rf /", tarfile.REGTYPE)]), "escape",
               "outside the task folder"),
    "absolute": (tar_bytes([("/etc/cron.d/evil", b"* * * * * root sh", tarfile.REGTYPE)]), "escape",
                 "outside the task folder"),
    "drive-letter": (zip_bytes([("C:/Windows/evil.bat", b"del *")]), "escape", "outside the task folder"),
    "backslash-dotdot": (zip_bytes([("..\\..\\evil.bat", b"del *")]), "escape", "outside the task folder"),
    "symlink": (tar_bytes([*good_task("symlink"), ("tests/data", None, tarfile.SYMTYPE)]), "link", "is a link"),
    "hardlink": (tar_bytes([*good_task("hardlink"), ("tests/data", None, tarfile.LNKTYPE)]), "link", "is a link"),
    "zip-symlink": (zip_bytes([("task.toml", TASK_TOML)], symlink="tests/data"), "link", "is a link"),
    "device": (tar_bytes([*good_task("device"), ("dev/sda", None, tarfile.BLKTYPE)]), "device", "is a device"),
    "fifo": (tar_bytes([*good_task("fifo"), ("pipe", None, tarfile.FIFOTYPE)]), "device", "is a device"),
    "too-many": (zip_bytes([(f"f{i}.txt", b"x") for i in range(archives.MAX_MEMBERS + 1)]), "members",
                 "more than 2,000 members"),
    "lying-size": (lying_zip(), "format", "not the size it declares"),
    "duplicate": (tar_bytes([*good_task("duplicate"), ("instruction.md", b"something else", tarfile.REGTYPE)]),
                  "duplicate", "appears twice"),
    "garbage-base64": ("this is %% not base64 at all !!" * 10, "base64", "not valid base64"),
    "zero-bytes": (b"", "empty", "zero bytes"),
    "not-an-archive": (b"just some bytes that are no archive" * 10, "format", "not a tar, tar.gz or zip"),
    "number": (12345, "type", "holds int"),
    "truncated-gzip": (tar_bytes(good_task("cut"))[:60], "format", "damaged"),
    # The CVE-2025-4517 class: links through a path past PATH_MAX that this Python's `data` filter lets out.
    "symlink-chain": (chain_archive(Path("/tmp/rlx-outside-the-task")), "link", "is a link"),
    "huge-zero-member": (huge_zero_member(), "size", "unpacks to more than"),
}


@pytest.mark.parametrize("name", ATTACKS)
def test_each_attack_is_refused_by_its_rule_before_anything_is_read(name):
    cell, rule, _ = ATTACKS[name]
    with pytest.raises(archives.ArchiveRefused) as refused:
        archives.unpack(cell)
    assert refused.value.rule == rule, str(refused.value)


def test_too_much_unpacked_data_is_refused_even_when_it_compresses_poorly(monkeypatch):
    monkeypatch.setattr(archives, "MAX_TOTAL_BYTES", 256 * 1024)
    noise = random.Random(7).randbytes(300 * 1024)  # incompressible: no ratio rule can catch it
    for cell in (tar_bytes([("noise.bin", noise, tarfile.REGTYPE)]), zip_bytes([("noise.bin", noise)])):
        with pytest.raises(archives.ArchiveRefused) as refused:
            archives.unpack(cell)
        assert refused.value.rule == "size"


def test_a_packed_cell_over_the_size_bound_is_refused_before_it_is_decoded(monkeypatch):
    monkeypatch.setattr(archives, "MAX_PACKED_BYTES", 1024)
    for cell in (b"PK\x03\x04" + b"x" * 2000, "A" * 4000):
        with pytest.raises(archives.ArchiveRefused) as refused:
            archives.unpack(cell)
        assert refused.value.rule == "size"


def test_a_good_archive_unpacks_in_every_packing():
    task = good_task("ok")
    plain = {name: data for name, data, _ in task}
    for cell in (tar_bytes(task), tar_bytes(task, gz=False), zip_bytes([(n, d) for n, d, _ in task]),
                 base64.b64encode(tar_bytes(task)).decode(), {"bytes": tar_bytes(task), "path": None}):
        assert archives.unpack(cell).files == plain


# Through the pages: one dataset, one row per attack between good rows.

ROWS = [("good-first", tar_bytes(good_task("FIRSTWORD")))] + [(n, a[0]) for n, a in ATTACKS.items()] + \
       [("good-last", base64.b64encode(zip_bytes([(n, d) for n, d, _ in good_task("LASTWORD")])).decode())]


@pytest.fixture(scope="module")
def attack_app(tmp_path_factory, redis_url):
    from rlx.config import Config

    root = tmp_path_factory.mktemp("attack-source")
    repo = root / "datasets" / ORG / "packed"
    (repo / "data").mkdir(parents=True)
    (repo / "README.md").write_text("---\npretty_name: attacks\n---\n")
    # Cells of mixed kinds (bytes, text, a number) go in as text: base64 for bytes, the number's digits.
    cells = [base64.b64encode(c).decode() if isinstance(c, bytes) else str(c) for _, c in ROWS]
    pq.write_table(pa.table({"task_id": [n for n, _ in ROWS], "task_archive": cells}), repo / "data" / "train.parquet")
    config = Config.from_env({"STORAGE_DIR": str(tmp_path_factory.mktemp("data")), "REDIS_URL": redis_url,
                              "SESSION_SECRET": "x", "RLX_SOURCE": str(root)})
    app = create_app(config)
    index_now(app, f"{ORG}/packed")
    return app, root


def _page(app, url):
    response = app.test_client().get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


@pytest.mark.parametrize("name", [n for n in ATTACKS if n != "number"])
def test_a_refused_archive_says_which_rule_it_broke_on_its_task_page(attack_app, name):
    app, _ = attack_app
    i = [n for n, _ in ROWS].index(name)
    html = _page(app, f"/t/{ORG}/packed/train/{i}")
    problem = html[html.index("Could not read this row"):][:1200]
    assert "was refused" in problem and ATTACKS[name][2] in problem.replace("&#39;", "'")


def test_the_rest_of_the_dataset_still_reads_and_nothing_was_written(attack_app):
    app, root = attack_app
    from rlx.adapters.indexes import load_index

    index = load_index(app.extensions["rlx.store"], f"{ORG}/packed")
    assert index.summary["processor"] == "packed-harbor"
    first, last = _page(app, f"/t/{ORG}/packed/train/0"), _page(app, f"/t/{ORG}/packed/train/{len(ROWS) - 1}")
    assert "FIRSTWORD" in first and "LASTWORD" in last and "Could not read this row" not in first + last
    assert "ZX-ANSWER" not in first + last
    env = _page(app, f"/d/{ORG}/packed")
    assert env.count('class="task-row') == len(ROWS)
    store_dir = app.extensions["rlx.store"].root
    members = ("evil.sh", "evil", "evil.bat", "sda", "pipe", "task.toml", "instruction.md", "solve.sh")
    landed = [p for where in (root, store_dir) for p in where.rglob("*") if p.name in members]
    assert landed == []  # unpacked in memory: no member reached the disk, in the source or the store


def test_a_cell_that_is_a_number_is_refused_as_no_archive(tmp_path):
    from rlx.adapters.rows.processors import RowRef, render_row
    from rlx.adapters.rows.processors.packed_harbor import PackedHarborProcessor

    task = render_row(PackedHarborProcessor(), {"task_id": "n", "task_archive": 12345}, RowRef("train", 0))
    assert "was refused (type)" in task.error and "holds int" in task.error


def test_a_gzip_blob_that_is_not_a_tar_does_not_make_a_dataset_read_as_packed_tasks():
    import gzip

    from rlx.adapters.rows.processors.packed_harbor import PackedHarborProcessor

    cases = [[f"{a} {b}", str(a + b)] for a, b in zip(range(0, 900, 7), range(5, 3000, 23))]
    blob = base64.b64encode(gzip.compress(repr(cases).encode())).decode()  # hidden tests, as code datasets pack them
    assert blob.startswith("H4sI") and len(blob) > 1000
    packed = base64.b64encode(tar_bytes(good_task("x"))).decode()
    assert PackedHarborProcessor().claim(["prompt", "tests"], [{"prompt": "add", "tests": blob}]) == 0.0
    assert PackedHarborProcessor().claim(["prompt", "tests"], [{"prompt": "add", "tests": packed}]) >= 0.9


def test_a_damaged_archive_is_refused_with_a_rule_never_with_another_error():
    """Every cut and thousands of byte flips of good archives: each unpacks or is refused, nothing else."""
    task = good_task("fuzz")
    rng = random.Random(11)
    others = []
    for good in (tar_bytes(task), tar_bytes(task, gz=False), zip_bytes([(n, d) for n, d, _ in task])):
        variants = [good[:i] for i in range(0, len(good), 5)]
        for _ in range(1500):
            damaged = bytearray(good)
            for _ in range(rng.randint(1, 4)):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            variants.append(bytes(damaged))
        for variant in variants:
            try:
                archives.unpack(variant)
            except archives.ArchiveRefused:
                pass
            except Exception as exc:  # noqa: BLE001 - the point: nothing but a refusal may escape
                others.append(f"{type(exc).__name__}: {exc}")
    assert others == []


def test_a_zip_with_too_many_entries_is_refused_before_zipfile_reads_its_directory(monkeypatch):
    def not_to_be_opened(*args, **kwargs):
        raise AssertionError("zipfile read the central directory of an archive already known to be too big")

    monkeypatch.setattr(archives.zipfile, "ZipFile", not_to_be_opened)
    with pytest.raises(archives.ArchiveRefused) as refused:
        archives.unpack(ATTACKS["too-many"][0])
    assert refused.value.rule == "members"

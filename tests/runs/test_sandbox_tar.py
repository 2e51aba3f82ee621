"""An archive an HF Sandbox hands back is unpacked by rlx/runs/sandbox_tar.py: only regular files land, inside
the target, within the byte cap counted as written. The hostile archives: the symbolic-link chain this Python
3.12.1's tarfile filter lets out, a hard link and a symbolic link to a host file, a device and a FIFO, `../` and
absolute names, an 8 GiB sparse member (GNU tar's own, 10 KB packed)."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

from rlx.runs.sandbox_tar import unpack_sandbox_tar
from tests.runs.test_sandbox_passage import chain_archive


def tar_of(members: list[tuple[str, bytes, str]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                info.linkname = data
                data = None
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def everything_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_the_symlink_chain_archive_writes_nothing_outside_and_no_link(tmp_path):
    outside, target = tmp_path / "outside", tmp_path / "target"
    outside.mkdir()
    archive = tmp_path / "chain.tar"
    archive.write_bytes(chain_archive(outside))
    copied = unpack_sandbox_tar(archive, target)
    assert list(outside.iterdir()) == []
    assert not any(p.is_symlink() for p in target.rglob("*"))
    assert any("not a regular file" in why for _, why in copied.skipped)


def test_links_devices_and_escaping_names_are_left_out_and_the_rest_lands(tmp_path):
    host_file = tmp_path / "host-secret.txt"
    host_file.write_text("HOST-SECRET\n")
    archive = tmp_path / "out.tar.gz"
    archive.write_bytes(tar_of([
        ("reward.txt", tarfile.REGTYPE, b"1\n"),
        ("stolen", tarfile.SYMTYPE, str(host_file)),
        ("hard", tarfile.LNKTYPE, str(host_file)),
        ("sda", tarfile.BLKTYPE, b""),
        ("pipe", tarfile.FIFOTYPE, b""),
        ("../../escaped.txt", tarfile.REGTYPE, b"out\n"),
        ("/tmp/absolute.txt", tarfile.REGTYPE, b"out\n"),
        ("deep/er/log.txt", tarfile.REGTYPE, b"kept\n"),
    ]))
    target = tmp_path / "target"
    copied = unpack_sandbox_tar(archive, target)
    assert everything_under(target) == ["deep", "deep/er", "deep/er/log.txt", "reward.txt"]
    assert (target / "reward.txt").read_text() == "1\n"
    assert not (tmp_path.parent / "escaped.txt").exists() and not Path("/tmp/absolute.txt").exists()
    assert {name for name, _ in copied.skipped} >= {"stolen", "hard", "sda", "pipe"}
    assert copied.files == 2


def test_an_8_gib_sparse_member_stays_out_by_bytes_written(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    with open(source / "zeros.bin", "wb") as handle:
        handle.truncate(8 << 30)
    (source / "reward.txt").write_text("1\n")
    archive = tmp_path / "out.tar.gz"
    subprocess.run(["tar", "--sparse", "-czf", str(archive), "-C", str(source), "."], check=True)
    assert archive.stat().st_size < 1 << 20
    target = tmp_path / "target"
    copied = unpack_sandbox_tar(archive, target, max_bytes=8 << 20)
    assert everything_under(target) == ["reward.txt"]
    assert sum(p.stat().st_size for p in target.rglob("*")) <= 8 << 20
    assert [why for name, why in copied.skipped if name == "zeros.bin"] == ["past the 8 MiB copied out"]


def test_a_damaged_archive_keeps_what_came_before_and_says_so(tmp_path):
    whole = tar_of([("first.txt", tarfile.REGTYPE, b"first\n"), ("second.txt", tarfile.REGTYPE, os.urandom(4096))])
    archive = tmp_path / "cut.tar.gz"
    archive.write_bytes(whole[: len(whole) // 2])
    copied = unpack_sandbox_tar(archive, tmp_path / "target")
    assert ("", "the archive is damaged past this point") in copied.skipped

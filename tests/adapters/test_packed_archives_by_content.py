"""Harbor tasks packed into a standalone archive (a tar.gz or zip of task folders at any path) are found by what
the archive holds, whatever the dataset's tags: every task lists and opens as its folder would, its solution
withheld; a hostile archive is refused with the rule it broke, on the dataset's page."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from tests.conftest import EXAMPLES, index_now

TASKS = EXAMPLES / "datasets" / "rlx-examples" / "terminal-basics" / "tasks"
NAMES = ("config-rewrite-sed", "csv-sales-rollup", "fix-backup-script")


def _files(prefix: str) -> dict[str, bytes]:
    return {f"{prefix}{name}/{p.relative_to(TASKS / name).as_posix()}": p.read_bytes()
            for name in NAMES for p in sorted((TASKS / name).rglob("*")) if p.is_file()}


def _tar_gz(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return out.getvalue()


@pytest.fixture(scope="module")
def app(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.config import Config

    hub = tmp_path_factory.mktemp("packed") / "hub"
    repos = {"tar-harbor": (["harbor"], "release/v1/tasks.tar.gz", _tar_gz(_files("suite/"))),
             "zip-untagged": (["rl-environment"], "bundle.zip", _zip(_files(""))),
             "hostile": (["harbor"], "tasks.tar.gz", _tar_gz({**_files(""), "../escape.txt": b"x"}))}
    for name, (tags, path, data) in repos.items():
        root = hub / "datasets" / "packs" / name
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
        (root / "README.md").write_text("---\ntags:\n" + "".join(f"- {t}\n" for t in tags) + "---\n# Packed\n")
    return create_app(Config.from_env({"STORAGE_DIR": str(hub.parent / "data"), "REDIS_URL": redis_url,
                                       "SESSION_SECRET": "x", "RLX_SOURCE": str(hub)}))


@pytest.mark.parametrize("name", ["tar-harbor", "zip-untagged"])
def test_every_task_of_a_standalone_archive_lists_and_opens(app, name):
    index = index_now(app, f"packs/{name}")
    assert index.summary.get("processor") == "packed-harbor" and len(index.rows) == len(NAMES)
    client = app.test_client()
    for row in index.rows:
        page = client.get(f"/t/packs/{name}/{row.ref}").get_data(as_text=True)
        assert "What the agent gets" in page or "Instruction" in page, row.ref
        assert "solution/" in page  # named as withheld, never shown
    listed = client.get(f"/d/packs/{name}").get_data(as_text=True)
    assert listed.count('class="task-row') == len(NAMES)


def test_a_hostile_archive_is_refused_with_its_rule(app):
    index_now(app, "packs/hostile")
    page = app.test_client().get("/d/packs/hostile").get_data(as_text=True)
    assert "was refused (escape)" in page

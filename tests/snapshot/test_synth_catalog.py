"""The synthetic catalog the benchmarks run on: today's bytes at scale 1, N times the size at --scale N, the same
bytes on every run, and a clear refusal of a scale it cannot make."""

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from rlx.store import Store
from scripts import synth_catalog as synth

# Digests taken from the generator as it was before --scale existed (commit e9e0008): scale 1 must keep them.
PLAN_DIGEST_1X = "271faee3ece2e78d36b5e191bfcf53f1986e9535394e28c10c2477c603c9fd36"
INDEX_DIGESTS_1X = {  # Harbor indexes carry the Harbor adapter's index_version (4 since the HF Sandbox share)
    "poulio-team/heap-novelty": "4b3399e07790246464f2eae4b8dc922b70e759a99c2657d45d6743c655654821",  # the largest
    "synth-bench/thousand-tasks": "9e103d05a86811cfb03364d1d5db8790d702d97fe5214c4356aa7323ef291ec8",
    "ancor/learning": "0b5f0f8fc49b915099d3917b404291891290e0fc06458d9fa95e187760ee5e67",
}
THOUSAND_FILE_DIGESTS_1X = {
    "README.md": "ab3510639dcf905b4169ace6e633a5e99e029a2846af31843468607255e9cf30",
    "tasks/task-0999/instruction.md": "fcf60374a96b2901c52ae586292e36dd508f78ae86820c1e9ed028e30b67650c",
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _plan_digest(catalog) -> str:
    """Every environment's id, task count, card and counters, in plan order."""
    digest = hashlib.sha256()
    for env in catalog.envs:
        digest.update(f"{env.repo_type}/{env.repo_id}/{env.task_count}\n".encode() + synth.readme_of(env).encode()
                      + json.dumps(env.meta, indent=1).encode())
    return digest.hexdigest()


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + _sha(path.read_bytes()).encode())
    return digest.hexdigest()


def test_scale_one_is_todays_catalog_byte_for_byte(tmp_path):
    catalog = synth.plan_catalog(scale=1)
    assert _plan_digest(catalog) == PLAN_DIGEST_1X
    chosen = [e for e in catalog.envs if e.repo_id in INDEX_DIGESTS_1X]
    synth.write_indexes(synth.Catalog(seed=catalog.seed, envs=chosen, words=catalog.words), Store(tmp_path))
    written = {env.repo_id: _sha(Store(tmp_path).index_path(env.repo_id).read_bytes()) for env in chosen}
    assert written == INDEX_DIGESTS_1X
    _, _, files, _ = synth.thousand_task_fixture(catalog)
    assert {path: _sha(files[path].encode()) for path in THOUSAND_FILE_DIGESTS_1X} == THOUSAND_FILE_DIGESTS_1X


def test_a_tenth_is_the_recipe_at_a_tenth_and_the_same_bytes_twice(tmp_path):
    first = synth.generate(tmp_path / "a", scale=0.1)
    synth.generate(tmp_path / "b", scale=0.1)
    assert _tree_digest(tmp_path / "a") == _tree_digest(tmp_path / "b")

    # What landed on disk, counted from the files: a tenth of each kind (3,650 OpenEnv Spaces -> 365 …).
    source = tmp_path / "a" / "source"
    spaces = [p.parent for p in (source / "spaces").rglob(".hub.json")]
    datasets = [p.parent for p in (source / "datasets").rglob(".hub.json")]
    gradio = [p for p in spaces if "sdk: gradio" in (p / "README.md").read_text()]
    assert (len(spaces) - len(gradio), len(gradio), len(datasets)) == (365 + 65, 12, 108 + 50 + 37 + 34 + 20 + 44)
    sizes = [len(json.loads(gzip.decompress(p.read_bytes()))["rows"])
             for p in (tmp_path / "a" / "store" / "indexes").glob("*.json.gz")]
    assert sum(sizes) == 5_150  # 51,498 / 10, rounded
    assert max(sizes) == 1_000 and sorted(sizes)[-2] == 369  # the task-folder dataset stays 1,000; 3,688 / 10
    assert first["envs"] == 723 and first["tasks"] == 5_150


def test_ten_times_plans_the_issue_figures():
    catalog = synth.plan_catalog(scale=10)
    counts = sorted((e.task_count for e in catalog.envs), reverse=True)
    assert (len(catalog.listed), sum(counts), counts[0]) == (72_250, 514_980, 36_880)
    rows_kind = [e.task_count for e in catalog.envs if e.kind == "rows"]
    assert len(rows_kind) == 4_400 and sum(rows_kind) > 0  # rows datasets grow with the rest
    assert len({e.repo_id for e in catalog.envs}) == len(catalog.envs)


@pytest.mark.parametrize("scale", ["0", "-1", "101", "nan"])
def test_a_scale_it_cannot_make_is_refused_and_writes_nothing(tmp_path, scale, capsys):
    with pytest.raises(SystemExit) as exit_:
        synth.main(["--out", str(tmp_path / "out"), "--scale", scale])
    assert exit_.value.code == 2
    assert "--scale must be above 0 and at most 100" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()

"""The benchmarks' page-cache guard (benchmarks/page_cache.py): a measurement during which the kernel dropped the
page cache is warmed again and repeated, at most twice, and the report says so. The kernel's counters are stand-ins
that change as a test says; nothing here is timed."""

from __future__ import annotations

from benchmarks import page_cache
from benchmarks.page_cache import PageCache


class FakeVmstat:
    """Counters that a measurement moves: each call of `work` drops the page cache if told to."""

    def __init__(self, drops_per_run: list[int]):
        self.drops = list(drops_per_run)
        self.values = {"drop_pagecache": 4, "pgmajfault": 1000, "workingset_refault_file": 50}
        self.runs = 0

    def read(self) -> dict[str, int]:
        return dict(self.values)

    def work(self) -> str:
        self.runs += 1
        dropped = self.drops.pop(0) if self.drops else 0
        self.values["drop_pagecache"] += dropped
        self.values["pgmajfault"] += 300 * dropped  # the file read back in, page by page
        return f"run {self.runs}"


def guard(vmstat: FakeVmstat, warmed: list) -> PageCache:
    return PageCache(files=("snapshot.db",), read=vmstat.read,
                     warm=lambda files: warmed.append(files) or {"mb": 1.0, "from_disk_mb": 0.0})


def test_a_measurement_with_no_drop_runs_once_after_one_warm_up():
    vmstat, warmed = FakeVmstat([0]), []
    result, note = guard(vmstat, warmed).measure(vmstat.work)
    assert (result, vmstat.runs, len(warmed)) == ("run 1", 1, 1)
    assert note["repeated"] == 0 and note["clean"]


def test_a_drop_during_the_measurement_warms_again_and_keeps_the_repeat():
    vmstat, warmed = FakeVmstat([1, 0]), []
    result, note = guard(vmstat, warmed).measure(vmstat.work)
    assert result == "run 2"  # the figures of the clean run, not of the one the disk slowed
    assert len(warmed) == 2  # warmed before the first run and again before the repeat
    assert note["repeated"] == 1 and note["clean"]
    assert [a["drop_pagecache"] for a in note["attempts"]] == [1, 0]
    assert [a["pgmajfault"] for a in note["attempts"]] == [300, 0]


def test_repeats_stop_after_two_and_say_the_kept_run_met_a_drop():
    vmstat, warmed = FakeVmstat([1, 2, 1, 0]), []
    result, note = guard(vmstat, warmed).measure(vmstat.work)
    assert (result, vmstat.runs) == ("run 3", 3)
    assert note["repeated"] == 2 and not note["clean"]


def test_counters_the_kernel_lacks_never_repeat_a_measurement():
    runs = []
    result, note = PageCache(read=dict).measure(lambda: runs.append(1) or "done")
    assert (result, len(runs), note["repeated"], note["clean"]) == ("done", 1, 0, True)


def test_read_counters_takes_the_page_cache_lines_of_vmstat(tmp_path):
    vmstat = tmp_path / "vmstat"
    vmstat.write_text("nr_free_pages 12\npgmajfault 250000\ndrop_pagecache 4\nworkingset_refault_file 77\n")
    assert page_cache.read_counters(vmstat) == {"drop_pagecache": 4, "pgmajfault": 250000,
                                                "workingset_refault_file": 77}
    assert page_cache.read_counters(tmp_path / "absent") == {}


def test_warm_files_reads_the_parts_out_of_the_page_cache(tmp_path):
    snapshot = tmp_path / "snapshot.db"
    snapshot.write_bytes(b"x" * 3_000_000)
    assert page_cache.warm_files([snapshot], missing=lambda path: [(0, 4096), (1_000_000, 500_000)])["mb"] == 0.5
    assert page_cache.warm_files([snapshot], missing=lambda path: [])["mb"] == 0.0
    assert page_cache.warm_files([snapshot], missing=lambda path: None)["mb"] == 3.0  # the kernel cannot say


def test_a_file_just_read_has_nothing_missing_from_the_page_cache(tmp_path):
    snapshot = tmp_path / "snapshot.db"
    snapshot.write_bytes(b"x" * 1_000_000)
    snapshot.read_bytes()
    assert page_cache.missing_ranges(snapshot) in ([], None)  # None: no mincore in this C library


def test_the_report_names_each_measurement_that_met_a_drop():
    clean = {"repeated": 0, "clean": True, "attempts": [{"drop_pagecache": 0}], "warmed": []}
    repeated = {"repeated": 1, "clean": True, "attempts": [{"drop_pagecache": 1, "pgmajfault": 48_000},
                                                           {"drop_pagecache": 0, "pgmajfault": 3}], "warmed": []}
    results = {"scaling": {"10×": {"app": {"per_query": {"Q1": {"page_cache": clean},
                                                         "Q7-likes": {"page_cache": repeated}}}}}}
    text = page_cache.render(results)
    assert "scaling / 10× / app / per_query / Q7-likes: repeated 1 time, the kept run was clean" in text
    assert "48,000, 3" in text
    assert "Q1" not in text


def test_the_report_says_when_no_measurement_met_a_drop():
    clean = {"repeated": 0, "clean": True, "attempts": [{"drop_pagecache": 0}], "warmed": [{"from_disk_mb": 0.0}]}
    assert "No measurement of this run met a dropped page cache." in page_cache.render({"app": {"page_cache": clean}})


def test_a_folder_stands_for_the_copies_in_it_when_warmed(tmp_path):
    copies = tmp_path / "snapshots"
    copies.mkdir()
    (copies / "101-1-catalog.db").write_bytes(b"x" * 1_000_000)
    (copies / "102-1-catalog.db").write_bytes(b"x" * 2_000_000)
    assert page_cache.warm_files([copies, tmp_path / "not-yet-copied.db"], missing=lambda path: None)["mb"] == 3.0


def test_a_run_with_no_guarded_measurement_has_no_page_cache_section():
    assert page_cache.render({"snapshot": {"seconds": 1.2}}) is None

"""The benchmarks' note of the CPU other processes took during a timed run (benchmarks/cpu_share.py), read from a
stand-in /proc whose counters a run moves as the test says; nothing here is timed."""

from __future__ import annotations

import os

from benchmarks import cpu_share

TICKS = os.sysconf("SC_CLK_TCK")


class FakeProc:
    """/proc with its first `stat` line and one `stat` per process (pid -> parent, CPU ticks)."""

    def __init__(self, root, processes: dict[int, tuple[int, int]]):
        self.root, self.processes, self.busy = root, dict(processes), 1_000
        self.write()

    def write(self) -> None:
        (self.root / "stat").write_text(f"cpu  {self.busy} 0 0 90000 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")
        for pid, (parent, ticks) in self.processes.items():
            folder = self.root / str(pid)
            folder.mkdir(exist_ok=True)
            # utime stime cutime cstime are fields 14-17; the command name may hold spaces and parentheses
            fields = ["S", str(parent)] + ["0"] * 9 + [str(ticks), "0", "0", "0"] + ["0"] * 5
            (folder / "stat").write_text(f"{pid} (py (x) y) " + " ".join(fields) + "\n")

    def use(self, pid: int, ticks: int) -> None:
        parent, used = self.processes[pid]
        self.processes[pid] = (parent, used + ticks)
        self.busy += ticks
        self.write()


def test_only_processes_outside_the_benchmark_tree_count_as_others(tmp_path):
    # 10: the benchmark; 11 the server it started, 12 that server's worker; 20 someone else's test run
    proc = FakeProc(tmp_path, {10: (1, 50), 11: (10, 70), 12: (11, 400), 20: (1, 900)})
    moments = iter([100.0, 102.0])  # the run lasts two seconds

    def run():
        proc.use(12, 3 * TICKS)  # the app's worker: 3 s of CPU, ours
        proc.use(20, 2 * TICKS)  # another process: 2 s of CPU over the 2 s run, one core
        return "answered"

    result, others = cpu_share.during(run, root=10, proc=tmp_path, clock=lambda: next(moments))
    assert result == "answered"
    assert others == 1.0


def test_a_machine_with_nothing_else_running_reports_no_other_cores(tmp_path):
    proc = FakeProc(tmp_path, {10: (1, 50), 11: (10, 70)})
    moments = iter([0.0, 5.0])
    _, others = cpu_share.during(lambda: proc.use(11, 4 * TICKS), root=10, proc=tmp_path,
                                 clock=lambda: next(moments))
    assert others == 0.0


def test_without_the_kernel_counters_the_run_still_answers_and_says_nothing(tmp_path):
    _, others = cpu_share.during(lambda: None, root=10, proc=tmp_path / "absent", clock=iter([0.0, 1.0]).__next__)
    assert others is None


def test_the_share_of_busy_time_the_host_stole_is_read_from_the_steal_counter(tmp_path):
    (tmp_path / "stat").write_text("cpu  600 0 100 9000 0 0 0 300 0 0\n")
    before = cpu_share.steal_and_busy(tmp_path)
    # over the run: 300 more ticks of ours (user), 100 more stolen
    (tmp_path / "stat").write_text("cpu  900 0 100 9100 0 0 0 400 0 0\n")
    assert before == (300, 1000)
    assert cpu_share.stolen_share(before, cpu_share.steal_and_busy(tmp_path)) == 0.25
    assert cpu_share.stolen_share(None, before) is None

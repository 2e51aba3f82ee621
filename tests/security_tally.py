"""The security suite's figures: inputs tried per category, leaks, 5xx answers.

    .venv/bin/python -m tests.security_tally [--json PATH] [pytest arguments...]

runs the security tests (each category below names its tests) with a pytest plugin that counts, per category,
the test cases, the requests they sent through Flask's test client (every fuzz example, every hostile Host, every
forged form) and the answers with a 5xx status. A 503 is counted apart: it is the designed answer to an upstream
outage, which some tests provoke on purpose. A leak is a failed test (each asserts that nothing leaked: no answer,
token, owner, path, markup or foreign host), so the suite's "0 leaks" is its failures column at 0. Requests made
by a real server in another process (gunicorn under Chromium) are not counted here; their cases are.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest

# (category, selectors): a selector is a test file, or file::test-name prefix. A test counts in the first match.
CATEGORIES: list[tuple[str, tuple[str, ...]]] = [
    ("numbers a visitor sends are bounded", ("test_attacks.py::test_every_number",)),
    ("redirects only to our own paths", ("test_attacks.py::test_the_banner_goes", "test_attacks.py::test_a_path_of",
                                         "test_signin.py::test_after_sign_in_only")),
    ("request bodies capped", ("test_attacks.py::test_a_10_mb", "test_admin_headers.py::test_the_admin_refuses")),
    ("Host names trusted only", ("test_attacks.py::test_a_foreign_or_unreadable_host", "test_attacks.py::test_a_double",
                                 "test_attacks.py::test_loopback", "test_attacks.py::test_rlx_trusted",
                                 "test_admin_headers.py::test_an_admin_served_apart_refuses")),
    ("cross-site writes", ("test_attacks.py::test_writes_", "test_attacks.py::test_a_spoofed",
                           "test_admin_headers.py::test_the_dashboards_changes",
                           "test_admin_headers.py::test_an_admin_served_apart_takes",
                           "test_admin_rollouts.py::test_a_takedown_that_may_not")),
    ("forged and expired sessions, tokens kept out", ("test_signin.py",)),
    ("settings file read defensively", ("test_settings_file.py",)),
    ("admin settings applied", ("test_admin_settings.py", "test_admin_stop.py")),
    ("admin: absent from the public app, members only", ("test_admin.py", "test_admin_rollouts.py")),
    ("private data per token", ("test_private_per_token.py",)),
    ("run privacy: a private or gated dataset's runs stay private", ("test_run_privacy.py",)),
    ("runs on private datasets: the visitor's token, their access re-checked", ("test_private_runs.py",)),
    ("hidden environments are absent", ("test_hidden_envs.py",
                                        "test_task_estimate.py::test_an_estimated_total_leaves_the_hidden")),
    ("per-visitor caps hold per person, not per cookie", ("test_playground.py::test_new_cookies",
                                                          "test_playground.py::test_fifty_playgrounds",
                                                          "test_caps_per_person.py")),
    ("a failing Hub on a first open: the sentence and the retry time", ("test_first_open_outage.py",)),
    ("answers withheld", ("test_withhold.py", "test_withhold_task.py", "test_answer_corners.py",
                          "test_server_only_keys.py")),
    ("task files inside their task", ("test_paths.py",)),
    ("visitor endpoints public https only", ("test_run_pages.py::test_forged_fields",)),
    ("SSRF: only the Hub's and a Space's own hosts", ("test_hub_source.py::test_a_next_page_link",
                                                      "test_live_introspection.py::test_a_space_is_called",
                                                      "test_live_introspection.py::test_the_loopback_setting",
                                                      "test_live_introspection.py::test_no_path_reaches",
                                                      "test_live_introspection.py::test_a_redirect_off")),
    ("SSRF: model endpoints re-pointed by DNS after the check", ("test_model_egress.py",)),
    ("security headers", ("test_security_headers.py", "test_admin_headers.py")),
    ("archive and YAML bombs", ("test_packed_archives.py::test_each_attack", "test_packed_archives.py::test_too_much",
                                "test_packed_archives.py::test_a_packed_cell", "test_packed_archives.py::test_a_refused",
                                "test_packed_archives.py::test_a_damaged", "test_packed_archives.py::test_a_zip_with",
                                "test_yaml_bombs.py")),
    ("injection in search and filters", ("test_xss.py::test_injection", "test_task_pages.py::test_search_words")),
    ("XSS in every rendered field", ("test_xss.py",)),
    ("JSON errors and /readyz give nothing away", ("test_attacks.py::test_json_errors", "test_attacks.py::test_readyz")),
    ("partial index: unknown task is no 500", ("test_attacks.py::test_an_unknown_task",)),
    ("rate limits and proxies", ("test_rate_limits.py",)),
    ("fuzz over the JSON API (OpenAPI)", ("test_openapi.py",)),
    ("sandbox", ("test_sandbox_passage.py", "test_task_vars.py", "test_worker_env.py", "test_store_full.py",
                 "test_sandbox_walls.py", "test_sandbox_network.py", "test_sandbox_tar.py",
                 "test_run_hf_sandbox.py::test_a_verifier_faking_tar")),
]


def category_of(nodeid: str) -> str | None:
    path, _, name = nodeid.partition("::")
    file = Path(path).name
    for category, selectors in CATEGORIES:
        for selector in selectors:
            sel_file, _, prefix = selector.partition("::")
            if file == sel_file and name.startswith(prefix):
                return category
    return None


def suite_files() -> list[str]:
    here = Path(__file__).resolve().parent
    names = dict.fromkeys(s.partition("::")[0] for _, selectors in CATEGORIES for s in selectors)
    found = {path.name: path for path in here.rglob("test_*.py")}  # tests live in folders mirroring the packages
    return [str(found[name]) for name in names if name in found]


class Tally:
    """A pytest plugin: keeps only the suite's tests and counts cases, requests and statuses per category."""

    def __init__(self):
        self.rows = defaultdict(lambda: {"cases": 0, "passed": 0, "failed": 0, "skipped": 0, "requests": 0,
                                         "5xx": 0, "503": 0})
        self.current: str | None = None
        self.failures: list[str] = []

    def pytest_collection_modifyitems(self, config, items):
        kept = [item for item in items if category_of(item.nodeid)]
        config.hook.pytest_deselected(items=[item for item in items if not category_of(item.nodeid)])
        items[:] = kept

    def pytest_configure(self, config):
        from werkzeug.test import Client

        original = Client.run_wsgi_app
        tally = self

        def counted(client, environ, buffered=False):
            answer = original(client, environ, buffered=buffered)
            if tally.current:
                row = tally.rows[tally.current]
                row["requests"] += 1
                status = int(answer[1].split(" ", 1)[0])
                if status == 503:
                    row["503"] += 1
                elif status >= 500:
                    row["5xx"] += 1
            return answer

        Client.run_wsgi_app = counted

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.current = category_of(item.nodeid)
        self.rows[self.current]["cases"] += 1
        yield
        self.current = None

    def pytest_runtest_logreport(self, report):
        category = category_of(report.nodeid)
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            key = {"passed": "passed", "failed": "failed", "skipped": "skipped"}[report.outcome]
            self.rows[category][key] += 1
            if report.outcome == "failed":
                self.failures.append(report.nodeid)

    def table(self) -> str:
        lines = ["| category | cases | requests | 5xx | 503 (upstream down, on purpose) | failed (leaks) | skipped |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
        total = defaultdict(int)
        for category, _ in CATEGORIES:
            row = self.rows.get(category)
            if not row:
                continue
            lines.append(f"| {category} | {row['cases']} | {row['requests']} | {row['5xx']} | {row['503']} | "
                         f"{row['failed']} | {row['skipped']} |")
            for key, value in row.items():
                total[key] += value
        lines.append(f"| **all** | {total['cases']} | {total['requests']} | {total['5xx']} | {total['503']} | "
                     f"{total['failed']} | {total['skipped']} |")
        return "\n".join(lines)


def main(argv: list[str]) -> int:
    out = None
    if argv[:1] == ["--json"]:
        out, argv = Path(argv[1]), argv[2:]
    tally = Tally()
    code = pytest.main([*suite_files(), "-q", "-p", "no:cacheprovider", *argv], plugins=[tally])
    print("\nThe security suite, per category:\n")
    print(tally.table())
    if tally.failures:
        print("\nFailed:", *tally.failures, sep="\n  ")
    if out:
        out.write_text(json.dumps({c: tally.rows[c] for c, _ in CATEGORIES if c in tally.rows}, indent=1))
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

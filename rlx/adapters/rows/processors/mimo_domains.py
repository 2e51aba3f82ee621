"""What matters in each domain of the MiMo release: its facets, its details, and how it is graded.

Each domain reads a row's instance (or, for music, `extra_info`) after answers were withheld: Code's fixes and
hidden test patch, Cyber's proof of concept, General's pass anchors never reach these functions.
"""

from __future__ import annotations

import posixpath
import re

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c

DOMAIN_LABELS = {"code": "Code", "cyber": "Cyber", "webdev": "Webdev", "music": "Music", "general": "General"}

# How each domain is graded, in one line (the env page's tiles) and in full (the reward design section).
GRADED_BY = {
    "code": "hidden unit tests",
    "cyber": "reproducing the crash",
    "webdev": "a vision judge on a render",
    "music": "a symbolic scorer",
    "general": "a weighted rubric",
}
REWARD_DESIGN = [
    # domain, reward, judge, not scored when
    ("code", "1 when the hidden tests pass after the test patch is applied, else 0", "none",
     "the test patch does not apply"),
    ("cyber", "1 when the last proof of concept crashes the program in the expected function with the same "
              "sanitizer kind, else 0", "none", "never"),
    ("webdev", "the mean of visual quality, brief fulfilment and asset quality, each 0 to 1", "a vision model on "
               "a full-page screenshot", "the page cannot render, or the judge is unreachable"),
    ("music", "0.85 × weighted musical features + 0.15 × histogram similarity, over 100", "none",
     "never: an unreadable score is 0"),
    ("general", "Σ weight × score / Σ weight over the rubric's checks (code checks and judged questions)",
     "a text model, one 0/1 answer per check", "the judge is unreachable, or a system dies"),
]

TERMINAL_FIELDS = (("category", "Category"), ("subcategory", "Subcategory"), ("tags", "Tags"), ("cpus", "CPUs"),
                   ("memory_mb", "Memory (MB)"), ("allow_internet", "Internet"),
                   ("agent_timeout_sec", "Agent timeout (s)"))
_SANITIZER = re.compile(r"^\s*(?P<sanitizer>\w*Sanitizer):\s*(?P<kind>[\w-]+(?:\s[\w-]+)?)\s+in function\s+"
                        r"`(?P<function>[^`]+)`(?:\s+in file\s+`(?P<file>[^`]+)`)?")
_GENERAL_ID = re.compile(r"^s3k_\d+_(?P<industry>[a-z]+(?:-[a-z]+)*)_(?P<lang>en|zh)_t(?P<tier>[1-5])_rl_\d+\Z")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_FRAMEWORKS = (("react", "React"), ("vue", "Vue"), ("svelte", "Svelte"), ("tailwind", "Tailwind"),
               ("next.js", "Next.js"), ("plain html", "HTML/CSS"))
_LANGUAGES = {".py": "Python", ".js": "JavaScript", ".ts": "TypeScript", ".go": "Go", ".rs": "Rust",
              ".java": "Java", ".rb": "Ruby", ".c": "C", ".cc": "C++", ".cpp": "C++", ".php": "PHP"}


def language_of(text: str) -> str:
    return "zh" if _CJK.search(text or "") else "en"


def tested_files(test_patch: str) -> list[str]:
    """The files a diff touches, from its `diff --git` headers (names only: the body is the hidden test)."""
    found = re.findall(r"^diff --git a/(\S+) b/", test_patch or "", flags=re.M)
    return list(dict.fromkeys(found))[:50]


def details(domain: str, instance: dict, extra: dict, prompt: str) -> tuple[dict, list]:
    """(facets, blocks describing the task) for one row of `domain`."""
    facets: dict = {"language": language_of(prompt)}
    if domain == "code":
        languages = sorted({_LANGUAGES[e] for e in (posixpath.splitext(p)[1] for p in
                                                    instance.get("_tested_files", [])) if e in _LANGUAGES})
        facets["programming_language"] = languages or "unknown"
        pairs = [("Image", instance.get("docker_image")), ("Working directory", instance.get("cwd"))]
        return facets, [b.kv(pairs, title="Where it runs")]
    if domain == "cyber":
        crash = _SANITIZER.match(str(instance.get("description") or "")) or None
        parts = crash.groupdict() if crash else {}
        facets.update({k: v for k, v in (("sanitizer", parts.get("sanitizer")), ("crash_type", parts.get("kind")),
                                         ("project", c.facet_value(instance.get("project")))) if v})
        pairs = [("Description", instance.get("description")), ("Project", instance.get("project")),
                 ("Expected crash", f"{parts['kind']} in `{parts['function']}`" if parts else None),
                 ("In file", parts.get("file")), ("Image", instance.get("docker_image")),
                 ("Working directory", instance.get("cwd"))]
        return facets, [b.kv(pairs, title="The crash to reproduce")]
    if domain == "webdev":
        brief = str(instance.get("brief") or prompt)
        mentioned = [label for word, label in _FRAMEWORKS if word in brief.lower()]
        if mentioned:
            facets["framework_mentioned"] = mentioned
        pairs = [("Image", instance.get("docker_image")), ("Working directory", instance.get("cwd"))]
        return facets, [b.prompt(brief, title="The brief"), b.kv(pairs, title="Where it runs")]
    if domain == "music":
        bpm = extra.get("bpm")
        tempo = None
        if isinstance(bpm, (int, float)):
            tempo = "slow (<80 BPM)" if bpm < 80 else ("moderate (80–120 BPM)" if bpm <= 120 else "fast (>120 BPM)")
        facets.update({k: v for k, v in (("style", c.facet_value(extra.get("tag"))), ("meter", extra.get("meter")),
                                         ("voices", c.facet_value(extra.get("nvoice_want"))), ("tempo", tempo)) if v})
        pairs = [("Style", extra.get("tag")), ("Tempo (BPM)", bpm), ("Metre", extra.get("meter")),
                 ("Length (bars)", extra.get("length")), ("Voices", extra.get("nvoice_want")),
                 ("Brief language", extra.get("lang")), ("Source piece", extra.get("src_id"))]
        return facets, [b.kv(pairs, title="The musical parameters")]
    if domain == "general":
        task_id = str(instance.get("instance_id") or extra.get("instance_id") or "")
        match = _GENERAL_ID.match(task_id)
        terminal = extra.get("dataset_type") == "terminal_bench"
        facets["source"] = "terminal-bench style" if terminal else "simulated workplace"
        if match:
            facets.update(industry=match["industry"], tier=f"tier {match['tier']}")
        if terminal and c.facet_value(extra.get("category")):
            facets["category"] = c.facet_value(extra.get("category"))
        pairs = [("Task", task_id), ("Kind", facets["source"]), ("Industry", match["industry"] if match else None),
                 ("Tier", match["tier"] if match else None)]
        pairs += [(label, extra.get(key)) for key, label in TERMINAL_FIELDS]  # terminal tasks' own settings
        return facets, [b.kv(pairs, title="The task")]
    return facets, []


def grading(domain: str, instance: dict) -> list:
    """How a row of `domain` is graded, what is withheld, and why."""
    how = {row[0]: row for row in REWARD_DESIGN}.get(domain)
    if how is None:
        return [b.note("The release's grader for this domain scores the result.")]
    blocks = [b.kv([("Reward", how[1]), ("Judge", how[2]), ("Not scored when", how[3])])]
    if domain == "code":
        files = instance.get("_tested_files") or []
        blocks.append(b.note("The hidden test patch is applied after the agent finishes, then the test command "
                             "runs; exit code 0 scores 1. The patch itself is withheld: it spells out the expected "
                             "behaviour line by line, so showing it would hand the agent the grader. The fix is "
                             "never shown.", "info"))
        blocks.append(b.kv([("Test command", instance.get("test_command")),
                            ("Verifier timeout (s)", instance.get("verifier_timeout_sec")),
                            ("Files the hidden tests touch", files or None)]))
    elif domain == "cyber":
        blocks.append(b.note("The proof of concept (and any fix) is withheld: it is the answer.", "info"))
    elif domain == "webdev":
        blocks.append(b.note("One vision call scores a full-page screenshot on layout, typography, colour, "
                             "whitespace, content richness, brief fulfilment and premium assets, each 0 to 1; "
                             "a blank page scores 0.", "info"))
    elif domain == "music":
        blocks.append(b.note("The ABC score is converted to MIDI and compared with the requested key, tempo, "
                             "metre, length and number of voices; the reference piece is withheld.", "info"))
    elif domain == "general":
        blocks.append(b.note("Each rubric check is a code check or a question a text judge answers 0 or 1 from "
                             "the deliverable; the checks' pass anchors are withheld.", "info"))
    return blocks

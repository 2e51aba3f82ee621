"""Metadata keys reach the page as labels a person reads, with the key itself beside them (people search by it)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from rlx.adapters.key_labels import readable


@pytest.mark.parametrize("key, label", [
    ("author_name", "Author"),  # known keys have their own label
    ("expert_time_estimate_min", "Expert's time (minutes)"),
    ("docker_image", "Docker image"),  # every other key is spelled out
    ("timeout_sec", "Timeout (seconds)"),  # a trailing unit goes in brackets
    ("gpu_count", "GPU count"),
    ("memoryMb", "Memory (MB)"),  # camelCase too
    ("mimo_instance_id", "MiMo instance ID"),
    ("difficulty", "Difficulty"),
])
def test_a_key_reads_as_words(key, label):
    assert readable(key) == label


def metadata_terms(html: str) -> list[tuple[str, str, str]]:
    """Each metadata term as shown: its visible label, its key in monospace, and its tooltip."""
    section = html[html.index('id="metadata"'):]
    section = section[:section.index("</section>")]
    terms = []
    for attrs, inner in re.findall(r"<dt([^>]*)>(.*?)</dt>", section, re.S):
        key = re.search(r'<code class="kv-key">(.*?)</code>', inner)
        tooltip = re.search(r'title="([^"]*)"', attrs)
        label = re.sub(r"<code.*?</code>", "", inner, flags=re.S).strip()
        terms.append((unescape(label), key.group(1) if key else "", tooltip.group(1) if tooltip else ""))
    return terms


def test_a_task_pages_metadata_shows_labels_with_their_keys(indexed_client):
    html = indexed_client.get("/t/rlx-examples/science-puzzles/chemistry/molar-mass-table").get_data(as_text=True)
    terms = metadata_terms(html)
    assert ("Author", "author_name", "author_name") in terms
    assert ("Expert's time (minutes)", "expert_time_estimate_min", "expert_time_estimate_min") in terms
    assert ("Difficulty", "", "") in terms  # the label already is the key: not said twice
    assert not [t for t in terms if "_" in t[0]]  # no raw key as a label

"""YAML from a repository (a Terminal-Bench 1 task.yaml, a docker-compose file, a README's or openenv.yaml's front
matter) is refused when its aliases expand it past a bound: a few hundred bytes must not become gigabytes once an
index, a page or an MCP answer writes the value out."""

from __future__ import annotations

import pytest

from rlx.adapters.harbor.compose import read_services
from rlx.adapters.harbor.tb1 import TaskYamlError, parse_task_yaml
from rlx.sources.folder import read_card


def laughs(levels: int = 9, key: str = "lol") -> str:
    """The billion laughs: each level is nine aliases of the one before (9**levels strings once expanded)."""
    lines = [f"{key}0: &{key}0 [" + ", ".join(['"ha"'] * 9) + "]"]
    lines += [f"{key}{i}: &{key}{i} [" + ", ".join([f"*{key}{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def test_a_task_yaml_bomb_is_refused_with_a_sentence():
    bomb = "instruction: Say hello.\n" + laughs()
    assert len(bomb) < 1_000
    with pytest.raises(TaskYamlError, match="refused: the YAML expands past"):
        parse_task_yaml(bomb)


def test_a_compose_bomb_declares_no_services_and_says_why():
    services, problem = read_services("services:\n  main:\n    image: ubuntu\n" + laughs(key="x-lol"))
    assert services == [] and "refused" in problem and "expands past" in problem


@pytest.mark.parametrize("wrap", [lambda y: f"---\n{y}---\n# Hello\n", lambda y: f"---\nname: env\n{y}---\n"])
def test_a_card_bomb_reads_as_no_card(wrap):
    empty = read_card(wrap(laughs())) == {}  # compared here: a failure message must not print the expanded bomb
    assert empty, "the card was read, bomb and all"


def test_ordinary_anchors_still_work():
    """docker-compose files share settings through anchors and merge keys; those are a few values, not a bomb."""
    compose = ("x-common: &common\n  image: python:3.12\n  ports: ['8000:8000']\n"
               "services:\n  main:\n    <<: *common\n  helper:\n    <<: *common\n")
    services, problem = read_services(compose)
    assert problem is None and [s["name"] for s in services] == ["main", "helper"]
    assert all(s["image"] == "python:3.12" for s in services)
    config, instruction, _ = parse_task_yaml("instruction: Say hello.\ntags: &t [a, b]\nalso: *t\n")
    assert instruction.strip() == "Say hello." and config.metadata["tags"] == ["a", "b"]


def test_yaml_nested_past_the_parsers_depth_is_refused_with_the_same_sentence():
    """libyaml stops at its own depth limit, the pure-Python parser at the recursion limit: either way the task
    says why, never a parser's trace."""
    with pytest.raises(TaskYamlError, match="nests too deep"):
        parse_task_yaml("instruction: Say hello.\ndeep: " + "[" * 5000 + "]" * 5000 + "\n")

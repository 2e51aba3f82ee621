"""The next limit (benchmarks/next_limit.py): each cost followed, as a power of the scale, to where it crosses its
bound. The expected scales are worked out by hand from the points given."""

from __future__ import annotations

import pytest

from benchmarks import next_limit


def test_a_linear_cost_crosses_its_ceiling_where_the_line_does():
    # 20 at 10x, 60 at 30x: power 1, so 100 is reached at 50x
    assert next_limit.exponent((10, 20), (30, 60)) == pytest.approx(1.0)
    at, already = next_limit.crossing([(10, 20), (30, 60)], 100, falling=False)
    assert at == pytest.approx(50) and not already


def test_a_falling_throughput_crosses_its_floor_between_the_points_that_bracket_it():
    # 400 req/s at 1x, 200 at 10x: power log(0.5)/log(10); 300 is reached at 1 * 0.75 ** (1 / power) = 2.60x
    at, already = next_limit.crossing([(1, 400), (10, 200), (30, 90)], 300, falling=True)
    assert at == pytest.approx(2.60, abs=0.01) and not already


def test_a_cost_already_past_its_bound_at_the_smallest_scale_says_so():
    assert next_limit.crossing([(0.1, 30), (1, 40)], 12, falling=False) == (0.1, True)


def test_a_cost_that_does_not_grow_never_crosses():
    assert next_limit.crossing([(10, 100), (30, 90)], 250, falling=False) == (None, False)


def test_a_curve_too_flat_to_reach_its_bound_within_ten_thousand_times_is_not_followed():
    # 107.2 MB at 10x, 107.6 at 30x: at that power 250 MB is reached far past any catalog
    assert next_limit.crossing([(10, 107.2), (30, 107.6)], 250, falling=False) == (None, False)

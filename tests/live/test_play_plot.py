"""The playground's reward plot is sent again with every step: it must stay small however long the episode, and
still show what a visitor looks for (every reward while there are few, the extremes always)."""

import re

from rlx.live.play_view import MAX_DOTS, reward_points, reward_text


def _vertices(plot: dict) -> list[tuple[float, float]]:
    return [tuple(map(float, pair.split(","))) for pair in plot["points"].split()]


def test_a_short_episode_draws_a_dot_and_a_vertex_for_every_reward():
    rewards = [0.0, 0.5, None, 1.0, 0.25]
    plot = reward_points(rewards)
    assert len(plot["dots"]) == 4 == len(_vertices(plot))  # the step without a reward is skipped
    assert plot["title"] == "Rewards: 0, 0.5, none, 1, 0.25"


def drawn(app, rewards) -> tuple[tuple[float, float], list[tuple[float, float]], str]:
    """What a visitor's browser gets for these rewards: the plot's size (its viewBox), the line's vertices, and the
    sentence under the plot."""
    with app.test_request_context():
        from flask import render_template

        html = render_template("partials/play_frames.html", kind="step", title="step", parts=[], withheld=[],
                               reward="0", done=False, rewards=rewards, plot=reward_points(rewards), action=None,
                               status={"text": "ok", "tone": "ok", "connected": True})
    box = re.search(r'<svg class="play-plot" viewBox="0 0 ([\d.]+) ([\d.]+)"', html)
    line = re.search(r'<polyline [^>]*points="([^"]*)"', html)
    caption = re.search(r'<div id="play-plot".*?<p class="[^"]*">(.*?)</p>', html, re.S).group(1)
    vertices = [tuple(map(float, pair.split(","))) for pair in line.group(1).split()]
    return (float(box.group(1)), float(box.group(2))), vertices, caption


def test_a_long_episode_is_drawn_in_bounded_size_with_its_one_spike_still_at_the_top(app):
    rewards = [0.0] * 5000
    rewards[3210] = 9.0  # one step stands out
    rewards[4000] = -2.0  # and one sinks
    (width, height), vertices, caption = drawn(app, rewards)
    assert len(vertices) <= 2 * width  # bounded by the plot's width, not the episode's length
    assert all(0 < x < width and 0 < y < height for x, y in vertices)  # inside the plot, off its edges
    top = min(vertices, key=lambda v: v[1])
    bottom = max(vertices, key=lambda v: v[1])
    flat = [y for _, y in vertices if y not in (top[1], bottom[1])]
    assert flat and all(bottom[1] > y > top[1] for y in flat)  # the zeros lie between the spike and the dip
    left, right = min(x for x, _ in vertices), max(x for x, _ in vertices)
    assert abs((top[0] - left) / (right - left) - 3210 / 4999) < 0.01  # the spike where step 3210 falls
    assert abs((bottom[0] - left) / (right - left) - 4000 / 4999) < 0.01
    assert [x for x, _ in vertices] == sorted(x for x, _ in vertices)  # drawn left to right, in step order
    assert caption == "5000 rewards, from -2 to 9."
    title = reward_points(rewards)["title"]
    assert title.startswith("Rewards of 5000 steps, the last 20: ") and len(title) < 200


def test_dots_stop_once_they_would_touch():
    assert len(reward_points([1.0] * MAX_DOTS)["dots"]) == MAX_DOTS
    assert reward_points([1.0] * (MAX_DOTS + 1))["dots"] == []


def test_the_step_fragment_of_a_long_episode_stays_small(app):
    with app.test_request_context():
        from flask import render_template

        rewards = [float(i % 7) for i in range(3000)]
        html = render_template("partials/play_frames.html", kind="step", title="step 3000", parts=[], withheld=[],
                               reward="1", done=False, rewards=rewards, plot=reward_points(rewards), action=None,
                               status={"text": "ok", "tone": "ok", "connected": True})
    plot_html = html[html.index('<div id="play-plot"'):html.index("</svg>")]
    assert "<circle" not in plot_html
    assert len(plot_html) < 12_000
    assert re.search(r"3000 rewards, from 0 to 6\.", html)


def test_rewards_read_as_people_write_them():
    assert reward_text(0.1 + 0.2) == "0.3"  # not 0.30000000000000004
    assert reward_text(None) == "none"
    assert reward_text(1) == "1" and reward_text(-0.125) == "-0.125"
    assert reward_points([0.1 + 0.2, 1.0])["low"] == "0.3"


def test_the_plot_has_a_step_axis_numbered_from_1_and_a_reward_axis_with_its_extremes():
    plot = reward_points([0.0, 0.5, None, 1.0, 0.25])
    assert [n for _, n in plot["x_ticks"]] == [1, 3, 5]
    assert sorted(label for _, label in plot["y_ticks"]) == ["0", "1"]
    top = min(plot["y_ticks"])  # the highest reward sits level with the top of the line
    assert top[1] == "1" and top[0] == min(y for _, y in plot["dots"])
    flat = reward_points([0.5])
    assert [label for _, label in flat["y_ticks"]] == ["0.5"]
    assert flat["y_ticks"][0][0] == flat["dots"][0][1]  # one reward: its tick level with its dot

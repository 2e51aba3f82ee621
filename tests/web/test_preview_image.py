"""The preview picture's layout: names of any length fit the card, wrapped and, past three lines, cut with "…"."""

import io

from PIL import Image

from rlx.web.seo.preview_image import (MAX_NAME_LINES, NAME_SIZES, TEXT_WIDTH, draw_preview, font, name_lines)

LONG = ("An Extraordinarily Long Dataset Name For Reinforcement Learning Agents Trained On Terminal Tasks With "
        "Many Words That Go On And On Until No Card Could Hold Them")
UNBROKEN = "a" + "very" * 40 + "longname"


def fits(lines, size):
    face = font(size, bold=True)
    return all(face.getlength(line) <= TEXT_WIDTH for line in lines)


def test_a_short_name_is_one_line_in_the_largest_type():
    assert name_lines("Echo env") == (["Echo env"], NAME_SIZES[0])


def test_a_long_name_wraps_at_spaces_within_the_card_and_ends_in_an_ellipsis():
    lines, size = name_lines(LONG)
    assert len(lines) == MAX_NAME_LINES and fits(lines, size) and size == NAME_SIZES[-1]
    assert lines[-1].endswith("…")
    shown = " ".join(lines)[:-1].rstrip()
    assert LONG.startswith(shown) and all(LONG.split()[i] == word for i, word in enumerate(shown.split()[:-1]))


def test_a_name_that_fits_in_smaller_type_is_shown_whole():
    name = "Terminal tasks for agents that read logs, fix scripts and summarise CSV files"
    lines, size = name_lines(name)
    assert " ".join(lines) == name and fits(lines, size) and size < NAME_SIZES[0]


def test_a_name_without_spaces_is_cut_by_characters_and_still_fits():
    lines, size = name_lines(UNBROKEN)
    assert len(lines) == MAX_NAME_LINES and fits(lines, size) and lines[-1].endswith("…")
    assert "".join(lines)[:-1] == UNBROKEN[:len("".join(lines)) - 1]


def test_hyphenated_ids_break_after_their_dashes():
    lines, size = name_lines("very-long-organisation-name-for-reinforcement-learning-agents-and-more-words")
    assert len(lines) > 1 and fits(lines, size) and all(line.endswith("-") for line in lines[:-1])
    assert "".join(lines) == "very-long-organisation-name-for-reinforcement-learning-agents-and-more-words"


def test_every_kind_of_card_is_a_1200_by_630_png():
    for card in ({"key": "o/x", "repo_type": "dataset", "heading": "x", "task_count": 1, "likes": 0, "downloads": 0},
                 {"key": "o/" + UNBROKEN, "repo_type": "dataset", "heading": LONG, "task_count": 51498,
                  "likes": 12345, "downloads": 2_500_000},
                 {"key": "o/echo", "repo_type": "space", "heading": "Echo", "task_count": 0, "likes": 3,
                  "downloads": 0}):
        picture = Image.open(io.BytesIO(draw_preview(card, "Harbor")))
        assert picture.format == "PNG" and picture.size == (1200, 630)

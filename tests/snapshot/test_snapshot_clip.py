"""What a snapshot row keeps of a long text: its words with single spaces, cut with an ellipsis."""

from rlx.snapshot.dataset_rows import clip, strings_json


def test_a_long_text_keeps_its_first_words_with_single_spaces_and_an_ellipsis():
    assert clip("one  two\tthree four five", 12) == "one two thr…"
    assert clip("a" * 5 + "      " + "b" * 20, 10) == "aaaaa bbb…"  # the spaces past the cut still count once
    assert clip("ab      cd", 5) == "ab cd"  # short once its spaces are single: not cut
    assert clip("word " * 100, 11) == "word word…"


def test_tags_are_written_as_json_a_reader_parses_back():
    import json

    tags = ["rl", "license:mit", 'say "hi"', "é", "back\\slash"]
    assert json.loads(strings_json(tags)) == tags
    assert strings_json([]) == "[]"

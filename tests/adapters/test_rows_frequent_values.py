"""A rows dataset's "Most frequent values" draws bars only where a value repeats: bars of 1 for a column whose
every value is distinct (an id, a prompt) would say nothing."""

from rlx.adapters.rows.sections import _column_blocks


def test_a_column_whose_every_value_is_distinct_gets_no_bars():
    columns = [{"name": "id", "type": "string", "top": [["a", 1], ["b", 1], ["c", 1]]},
               {"name": "level", "type": "string", "top": [["easy", 5], ["hard", 2]]}]
    stats = [block for block in _column_blocks(columns) if block.kind == "stats"]
    assert [group["label"] for group in stats[0].data] == ["level"]

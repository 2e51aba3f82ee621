"""What a live server answers goes through the one walk: an answer-named field is dropped, and its value is masked
wherever else the same answer stands in it (an observation that repeats the target it also returns)."""

from rlx.adapters.withhold import MASK
from rlx.live.bridge import normalised_result


def test_a_target_returned_beside_an_observation_is_masked_in_the_observation_too():
    result = normalised_result({"content": [{"type": "text", "text": "Board: 4 7 2 9 — ZX-LIVE-8812 wins"}],
                                "structuredContent": {"board": "ZX-LIVE-8812 at square 4",
                                                      "expected_move": "ZX-LIVE-8812", "turn": 3}})
    text = result.text + str(result.structured)
    assert "ZX-LIVE-8812" not in text and MASK in result.text and result.structured["turn"] == 3
    assert "expected_move" not in result.structured

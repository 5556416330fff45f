"""`Referee.is_legal(intent)`: what the voice layer asks before acting on a hypothesis.

It must agree with what `handle_intent` would do, and never change the game.
"""

from __future__ import annotations

import pytest

from voice_ref.dialogue.referee import Referee, TableSetup
from voice_ref.language.intents import (
    BidIntent,
    ChoiceIntent,
    DudoIntent,
    Intent,
    NumberIntent,
    QueryIntent,
    YesIntent,
)
from voice_ref.rules import (
    Awaiting,
    Calzo,
    Dudo,
    Paso,
    PassCheck,
    Raise,
    RevealCount,
    answers,
)

ABC = ("Ana", "Beto", "Carla")


def referee(lines: list[str]) -> Referee:
    ref = Referee(TableSetup(players=ABC, preset="chile", starter="Ana", direction="izquierda"))
    for line in lines:
        assert ref.handle_text(line).accepted, line
    return ref


ROWS: list[tuple[str, list[str], Intent, bool]] = [
    ("opening bid", [], BidIntent(quantity=5, face=5), True),
    ("opening with aces", [], BidIntent(quantity=2, face=1), False),
    ("raise", ["cinco quinas"], BidIntent(quantity=5, face=6), True),
    ("too low", ["cinco quinas"], BidIntent(quantity=5, face=3), False),
    ("aces conversion", ["cinco quinas"], BidIntent(quantity=3, face=1), True),
    ("aces too few", ["seis cuadras"], BidIntent(quantity=3, face=1), False),
    ("dudo with a bid", ["cinco quinas"], DudoIntent(), True),
    ("dudo by the opener", [], DudoIntent(), False),
    ("out of turn", ["cinco quinas"], DudoIntent(player="Carla"), False),
    ("named on turn", ["cinco quinas"], DudoIntent(player="Beto"), True),
    ("count while bidding", ["cinco quinas"], NumberIntent(value=4), False),
    ("count after dudo", ["cinco quinas", "dudo"], NumberIntent(value=4), True),
    ("count above table", ["cinco quinas", "dudo"], NumberIntent(value=16), False),
    ("bid while counting", ["cinco quinas", "dudo"], BidIntent(quantity=6, face=6), False),
    ("query any time", ["cinco quinas", "dudo"], QueryIntent(what="dice"), True),
    ("direction not asked", [], ChoiceIntent(value="derecha"), False),
    ("yes with no question", [], YesIntent(), False),
    ("count said limpias when aces count", ["cinco quinas", "dudo"],
     BidIntent(quantity=5, face=5, clean=True), False),
    ("yes confirms an undo", ["cinco quinas", "dudo", "4", "me equivoqué"],
     YesIntent(), True),
    ("a bid waits for the undo answer", ["cinco quinas", "dudo", "4", "me equivoqué"],
     BidIntent(quantity=2, face=3), False),
]


@pytest.mark.parametrize(
    ("lines", "intent", "legal"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_is_legal_agrees_with_handling(lines: list[str], intent: Intent, legal: bool) -> None:
    ref = referee(lines)
    before = ref.state()
    assert ref.is_legal(intent) is legal
    assert ref.state() == before  # asking changes nothing
    if intent.type != "query":
        assert ref.handle_intent(intent).accepted is legal


@pytest.mark.parametrize(
    ("awaiting", "moves"),
    [
        (Awaiting.BID, (Raise, Dudo, Calzo, Paso)),
        (Awaiting.COUNT, (RevealCount,)),
        (Awaiting.PASS_CHECK, (PassCheck,)),
        (Awaiting.GAME_OVER, ()),
    ],
)
def test_rules_say_which_moves_answer_which_question(awaiting, moves):
    assert answers(awaiting) == moves

"""Properties over random utterance sequences: refusals change nothing, undo is exact,
and replaying the game log rebuilds the very same referee state."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voice_ref.dialogue.referee import Referee, TableSetup

FACES = ["ases", "tontos", "trenes", "cuadras", "quinas", "sextos"]
NUMBERS = ["cero", "una", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"]
WORDS = (
    [f"{n} {f}" for n in NUMBERS[1:8] for f in FACES]
    + [f"{n} {f} limpias" for n in NUMBERS[2:5] for f in ("quinas", "cuadras")]
    + ["cero quinas", "setenta trenes", "dudo", "calzo", "paso", "sí", "no", "abierta",
       "cerrada", "a la izquierda", "a la derecha", "parte Beto", "Carla", "Xavier, dudo",
       "Beto, dudo", "Carla, calzo", "me equivoqué", "repite", "nueva partida",
       "¿cuántos dados hay?", "¿cuál es el mínimo?", "¿a quién le toca?", "", "blorp",
       "as, as, quina, sexto, sexto", "tren, tren, tren, cuadra, as"]
    + [str(n) for n in range(0, 17)]
)
# Lines that keep a game moving, so that sequences get past the first questions.
PROGRESS = ["dos quinas", "tres quinas", "cuatro quinas", "dos trenes", "tres sextos", "dudo",
            "dudo", "0", "1", "2", "sí", "no", "cerrada", "a la izquierda", "parte Beto",
            "quina", "as", "nueva partida", "me equivoqué"]
NOT_LOGGED = ("query", "repeat")


class ListLog:
    def __init__(self) -> None:
        self.records: list[dict] = []

    def append(self, record: dict) -> None:
        self.records.append(record)


def fingerprint(ref: Referee) -> tuple:
    return (ref.game.snapshot(), ref._talk, ref.state())


setups = st.sampled_from(
    [
        TableSetup(("Ana", "Beto", "Carla"), "chile", starter="ask"),
        TableSetup(("Ana", "Beto"), "chile", starter="Ana", overrides={"start_dice": 2}),
        TableSetup(("Ana", "Beto", "Carla"), "dudo", starter="roll", overrides={"start_dice": 2}),
        TableSetup(("Ana", "Beto", "Carla"), "cachito", starter="random", seed=1,
                   overrides={"start_dice": 2}),
        TableSetup(("Ana", "Beto", "Carla"), "simple", starter="Carla"),
    ]
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=setups,
    lines=st.lists(st.one_of(st.sampled_from(PROGRESS), st.sampled_from(WORDS)), max_size=40),
)
def test_refusals_undo_and_replay(setup, lines):
    log = ListLog()
    ref = Referee(setup, log=log)
    ref.opening()
    for line in lines:
        before = fingerprint(ref)
        answers_undo = ref._talk.confirm_undo  # "sí"/"no" to "¿Deshago …?" is part of an undo
        reply = ref.handle_text(line)
        assert reply.say
        if not reply.accepted:
            assert fingerprint(ref) == before, line
            continue
        kind = reply.intent.type if reply.intent else None
        if kind in NOT_LOGGED:
            assert fingerprint(ref) == before, line
            continue
        assert log.records[-1]["intent"] == reply.intent.to_json()
        if kind != "undo" and not answers_undo:
            after = fingerprint(ref)
            undo = ref.handle_text("me equivoqué")
            assert undo.accepted
            if undo.say.startswith("¿Deshago"):  # a result or who starts: asked first
                assert ref.handle_text("sí").accepted
            assert fingerprint(ref) == before, f"undo of {line!r}"
            assert ref.handle_text(line).accepted  # say it again: same result
            assert fingerprint(ref) == after
    replayed = Referee(setup)
    assert replayed.replay(log.records) == []
    assert fingerprint(replayed) == fingerprint(ref)

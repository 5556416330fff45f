"""What the referee says and does, one kind of line per row (in-process, fast).

Each row: a table setup, the lines said before (to reach a state), the line under
test, whether it is accepted, the exact Spanish answer, and facts about the state.
"""

from __future__ import annotations

from typing import Any

import pytest

from voice_ref.dialogue.referee import Referee, TableSetup

ABC = ("Ana", "Beto", "Carla")
ABCD = ("Ana", "Beto", "Carla", "Diego")


def referee(players=ABC, preset="chile", **kw: Any) -> Referee:
    kw.setdefault("starter", "Ana")
    kw.setdefault("direction", "izquierda")
    return Referee(TableSetup(players=players, preset=preset, **kw))


def play(ref: Referee, lines: list[str]) -> None:
    for line in lines:
        reply = ref.handle_text(line)
        assert reply.accepted, f"setup line {line!r} refused: {reply.say}"


# (id, setup kwargs, prefix, line, accepted, say, state facts)
ROWS: list[tuple[str, dict, list[str], str, bool, str, dict]] = [
    # --- bids
    ("bid echo", {}, [], "cinco quinas", True,
     "Cinco quinas. Beto, te toca.", {"turn": "Beto", "bid.quantity": 5, "bid.by": "Ana"}),
    ("bid one as feminine", {}, [], "una quina", True, "Una quina. Beto, te toca.", {}),
    ("bid one tren masculine", {}, [], "un tren", True, "Un tren. Beto, te toca.", {}),
    ("bid veintiún trenes", {}, [], "veintiún trenes", True,
     "Veintiún trenes. Beto, te toca.", {}),
    ("bid veintiuna quinas", {}, [], "veintiuna quinas", True,
     "Veintiuna quinas. Beto, te toca.", {}),
    ("too low with minimum", {}, ["cinco quinas"], "cinco trenes", False,
     "No vale: después de cinco quinas hay que subir. "
     "Mínimo: cinco sextos, seis de otra pinta o tres ases.", {"bid.by": "Ana"}),
    ("worked: 7 trenes -> 4 ases", {}, ["siete trenes"], "tres ases", False,
     "No vale: después de siete trenes hay que subir. "
     "Mínimo: siete cuadras, ocho de otra pinta o cuatro ases.", {}),
    ("worked: 5 quinas -> 3 ases ok", {}, ["cinco quinas"], "tres ases", True,
     "Tres ases. Carla, te toca.", {}),
    # a typed line read only by guessing (score < 0.5) is not understood, however legal
    ("guess: tres puntos (0.45)", {}, ["cinco quinas"], "tres puntos", False,
     "No entendí.", {"bid.quantity": 5}),
    ("near miss: seis cuinas", {}, ["cinco quinas"], "seis cuinas", True,
     "Seis quinas. Carla, te toca.", {"bid.quantity": 6}),
    ("after sextos any face", {}, ["cuatro sextos"], "cuatro quinas", False,
     "No vale: después de cuatro sextos hay que subir. "
     "Mínimo: cinco de cualquier pinta o tres ases.", {}),
    ("from aces minimum", {}, ["dos quinas", "dos ases"], "cuatro sextos", False,
     "No vale: después de dos ases hay que subir. "
     "Mínimo: cinco de cualquier pinta o tres ases.", {}),
    ("open with aces", {}, [], "dos ases", False,
     "No vale: no se parte con ases. Ana parte con otra pinta.", {"bid": None}),
    ("bid of zero", {}, [], "cero quinas", False,
     "No vale: hay que cantar al menos un dado.", {"bid": None}),
    ("bid above sixty", {}, [], "setenta quinas", False,
     "No vale: se puede cantar hasta sesenta dados.", {"bid": None}),
    ("bid over sixty at the minimum", {"players": ABCD, "overrides": {"start_dice": 20}},
     ["cincuenta y nueve quinas", "treinta ases"], "sesenta y una quinas", True,
     "Sesenta y una quinas. Diego, te toca.", {"bid.quantity": 61}),
    ("bid over the minimum cap", {"players": ABCD, "overrides": {"start_dice": 20}},
     ["cincuenta y nueve quinas", "treinta ases"], "setenta quinas", False,
     "No vale: se puede cantar hasta sesenta y un dados.", {"bid.quantity": 30}),
    ("limpio outside cachito", {}, [], "cinco quinas limpias", False,
     "No vale: en estas reglas no se canta limpio.", {"bid": None}),
    ("number without face", {}, [], "cinco", False, "Falta la pinta: ¿cinco de qué?", {}),
    # --- turn and names
    ("out of turn addresses the speaker", {"players": ABCD, "starter": "Carla"}, [],
     "Diego, cinco sextos", False, "Espera, Diego: le toca a Carla.", {"bid": None}),
    ("out of turn", {}, [], "Carla, cinco quinas", False, "Espera, Carla: le toca a Ana.",
     {"bid": None}),
    ("unknown name", {}, [], "Xavier, dudo", False,
     "No hay nadie llamado Xavier en la mesa.", {}),
    ("name alone on turn", {}, [], "Ana", False, "Ana, ¿qué cantas?", {}),
    # --- dudo / count
    ("dudo asks to count with aces", {}, ["cinco quinas"], "dudo", True,
     "Beto duda. Levanten los cachos. ¿Cuántas quinas hay, contando ases?",
     {"awaiting": "count", "turn": None}),
    ("dudo on aces", {}, ["cinco quinas", "tres ases"], "dudo", True,
     "Carla duda. Levanten los cachos. ¿Cuántos ases hay?", {"awaiting": "count"}),
    ("count: bidder loses", {}, ["cinco quinas", "dudo"], "cuatro", True,
     "Había cuatro quinas: Ana pierde un dado, le quedan cuatro. Parte Ana.",
     {"awaiting": "bid", "turn": "Ana", "dice_on_table": 14, "bid": None}),
    ("count: challenger loses", {}, ["cinco quinas", "dudo"], "hay seis", True,
     "Había seis quinas: Beto pierde un dado, le quedan cuatro. Parte Beto.", {"turn": "Beto"}),
    ("count said as a bid", {}, ["cinco quinas", "dudo"], "una quina", True,
     "Había una quina: Ana pierde un dado, le quedan cuatro. Parte Ana.", {}),
    ("count above the table", {}, ["cinco quinas", "dudo"], "dieciséis", False,
     "No puede ser: hay quince dados en la mesa. ¿Cuántas quinas hay, contando ases?",
     {"awaiting": "count"}),
    ("pending count refuses a bid", {}, ["cinco quinas", "dudo"], "seis trenes", False,
     "Primero respondan: ¿Cuántas quinas hay, contando ases?", {"awaiting": "count"}),
    ("count said limpias when aces count", {}, ["cinco quinas", "dudo"],
     "cinco quinas limpias", False,
     "No: se cuentan los ases. ¿Cuántas quinas hay, contando ases?", {"awaiting": "count"}),
    ("dudo without a bid", {}, [], "dudo", False,
     "No hay canto todavía: Ana tiene que cantar.", {}),
    # --- calzo
    ("calzo", {}, ["cinco quinas"], "calzo", True,
     "Beto calza. Levanten los cachos. ¿Cuántas quinas hay, contando ases?", {}),
    ("calzo right", {}, ["cinco quinas", "calzo"], "cinco", True,
     "Había cinco quinas, justo: Beto gana un dado, ahora tiene seis. Parte Beto.",
     {"turn": "Beto"}),
    ("calzo wrong", {}, ["cinco quinas", "calzo"], "tres", True,
     "Había tres quinas: Beto pierde un dado, le quedan cuatro. Parte Beto.", {}),
    ("calzo refused: half the table gone",
     {"players": ("Ana", "Beto"), "overrides": {"start_dice": 3, "calzo": "more_than_half_table"}},
     ["una quina", "dudo", "0", "una quina", "dudo", "1", "una quina", "dudo", "0", "no",
      "una quina"],
     "calzo", False, "No se puede calzar: quedan pocos dados en la mesa.", {"dice_on_table": 3}),
    ("calzo with one die in chile", {"players": ("Ana", "Beto"), "overrides": {"start_dice": 3}},
     ["una quina", "dudo", "0", "una quina", "dudo", "0", "no", "una quina", "dudo", "1",
      "una quina", "dudo", "0"],
     "no", True, "Beto no obliga. Parte Beto.", {"dice_on_table": 2}),
    ("calzo refused in simple", {"preset": "simple"}, ["cinco quinas"], "calzo", False,
     "No se puede calzar: Beto tiene todos sus dados.", {"awaiting": "bid"}),
    # --- paso
    ("paso", {}, ["cinco quinas"], "paso", True, "Beto pasa. Carla, te toca.",
     {"turn": "Carla"}),
    ("dudo on a pass asks the hand", {}, ["cinco quinas", "paso"], "dudo", True,
     "Carla duda el paso de Beto. ¿La mano de Beto era válida? "
     "Digan sí o no, o los cinco dados.", {"awaiting": "pass_check"}),
    ("pass valid", {}, ["cinco quinas", "paso", "dudo"], "sí", True,
     "La mano era válida: Carla pierde un dado, le quedan cuatro. Parte Carla.", {}),
    ("pass dictated invalid", {}, ["cinco quinas", "paso", "dudo"],
     "as, as, quina, sexto, sexto", True,
     "La mano no era válida: Beto pierde un dado, le quedan cuatro. Parte Beto.", {}),
    ("pass check refuses a count", {}, ["cinco quinas", "paso", "dudo"], "tres", False,
     "Primero respondan: ¿La mano de Beto era válida? Digan sí o no, o los cinco dados.", {}),
    ("paso twice", {}, ["cinco quinas", "paso", "seis quinas", "siete quinas"], "paso", False,
     "No se puede pasar: Beto ya pasó en esta ronda.", {}),
    ("paso refused in simple", {"preset": "simple"}, ["cinco quinas"], "paso", False,
     "En estas reglas no se pasa.", {}),
    ("paso right after paso in dudo", {"preset": "dudo", "direction": None},
     ["cinco quinas", "paso"], "paso", False,
     "No se puede pasar justo después de otro paso.", {}),
    ("yes with nothing pending", {}, ["cinco quinas"], "sí", False,
     "No hay ninguna pregunta pendiente. Beto, te toca.", {}),
    # --- starter and direction
    ("ask starter", {"starter": "ask", "direction": None}, [], "parte Beto", True,
     "Parte Beto: ¿izquierda o derecha?", {"awaiting": "direction"}),
    ("starter by name alone", {"starter": "ask", "direction": None}, [], "Carla", True,
     "Parte Carla: ¿izquierda o derecha?", {"turn": "Carla"}),
    ("starter pending refuses a bid", {"starter": "ask"}, [], "cinco quinas", False,
     "Primero respondan: ¿Quién parte? Digan, por ejemplo, «parte Ana».",
     {"awaiting": "starter"}),
    ("direction chosen", {"direction": None}, [], "a la derecha", True,
     "A la derecha. Parte Ana.", {"direction": "derecha", "awaiting": "bid"}),
    ("direction then play goes right", {"direction": None}, ["a la derecha"], "dos trenes",
     True, "Dos trenes. Carla, te toca.", {"turn": "Carla"}),
    ("direction word in dudo gets the rule", {"preset": "dudo", "direction": None},
     ["cinco quinas"], "a la derecha", False, "En Dudo siempre se juega a la izquierda.",
     {"direction": "izquierda"}),
    ("direction word in simple gets the rule", {"preset": "simple", "direction": None}, [],
     "izquierda", False, "En Dudo simple siempre se juega a la izquierda.", {}),
    ("direction word mid-round", {}, ["cinco quinas"], "a la derecha", False,
     "Ahora no se elige la dirección.", {"direction": "izquierda"}),
    # --- queries
    ("query dice", {}, ["cinco quinas", "dudo", "4"], "¿cuántos dados hay?", True,
     "Quedan catorce dados: Ana cuatro, Beto cinco, Carla cinco.", {}),
    ("query dice left", {}, ["cinco quinas", "dudo", "4"], "¿cuántos dados quedan?", True,
     "Quedan catorce dados: Ana cuatro, Beto cinco, Carla cinco.", {}),
    ("query dice of a player", {}, [], "¿cuántos dados tiene Beto?", True,
     "Beto tiene cinco dados.", {}),
    ("query turn", {}, ["cinco quinas"], "¿a quién le toca?", True, "Le toca a Beto.", {}),
    ("query minimum", {}, ["cinco quinas"], "¿cuál es el mínimo?", True,
     "Mínimo: cinco sextos, seis de otra pinta o tres ases.", {}),
    ("query minimum at opening", {}, [], "¿cuál es el mínimo?", True,
     "No hay canto: Ana parte con cualquier pinta menos ases.", {}),
    ("query bid", {}, ["cinco quinas"], "¿qué se cantó?", True,
     "Se cantó cinco quinas, de Ana.", {}),
    ("query no bid", {}, [], "¿qué se cantó?", True, "Todavía no hay canto.", {}),
    ("query hidden counts", {"overrides": {"hidden_counts": True}}, [],
     "¿cuántos dados tiene Beto?", True, "Solo digo el total: quedan quince dados en la mesa.",
     {}),
    ("hidden counts outcome", {"overrides": {"hidden_counts": True}},
     ["cinco quinas", "dudo"], "cuatro", True,
     "Había cuatro quinas: Ana pierde un dado. Parte Ana.", {}),
    # --- repeat, undo, new game
    ("repeat", {}, ["cinco quinas"], "repite", True, "Cinco quinas. Beto, te toca.", {}),
    ("undo a bid", {}, ["cinco quinas", "seis quinas"], "me equivoqué", True,
     "Deshecho: seis quinas de Beto. Beto, te toca.",
     {"turn": "Beto", "bid.quantity": 5}),
    ("undo a count", {}, ["cinco quinas", "dudo", "4"], "me equivoqué", True,
     "¿Deshago el resultado? Ana recupera un dado.", {"awaiting": "bid", "dice_on_table": 14}),
    ("undo a count confirmed", {}, ["cinco quinas", "dudo", "4", "me equivoqué"], "sí", True,
     "Deshecho: el resultado. ¿Cuántas quinas hay, contando ases?",
     {"awaiting": "count", "dice_on_table": 15}),
    ("undo a count declined", {}, ["cinco quinas", "dudo", "4", "me equivoqué"], "no", True,
     "No deshago nada. Parte Ana.", {"awaiting": "bid", "dice_on_table": 14}),
    ("undo confirmation pending refuses a bid", {}, ["cinco quinas", "dudo", "4", "me equivoqué"],
     "dos trenes", False,
     "Primero respondan: ¿Deshago el resultado? Ana recupera un dado.", {"bid": None}),
    ("undo a calzo gain asks", {}, ["cinco quinas", "calzo", "5"], "me equivoqué", True,
     "¿Deshago el resultado? Beto devuelve un dado.", {"players.1.dice": 6}),
    ("undo says what it undid", {}, ["cinco quinas"], "me equivoqué", True,
     "Deshecho: cinco quinas de Ana. Parte Ana.", {"bid": None, "turn": "Ana"}),
    ("undo a dudo", {}, ["cinco quinas", "dudo"], "me equivoqué", True,
     "Deshecho: la duda de Beto. Beto, te toca.", {"awaiting": "bid"}),
    ("own bid taken back", {}, ["cinco quinas"], "Ana, me equivoqué", True,
     "Deshecho: cinco quinas de Ana. Parte Ana.", {"bid": None}),
    ("named undo of someone else's bid", {}, ["cinco quinas", "seis quinas"],
     "Ana, me equivoqué", False, "Espera, Ana: lo último lo dijo Beto.", {"bid.by": "Beto"}),
    ("correction: no, dije", {}, ["cinco quinas"], "no, dije cuatro quinas", True,
     "Corregido: cuatro quinas. Beto, te toca.", {"bid.quantity": 4, "bid.by": "Ana"}),
    ("correction: no, bid", {}, ["cinco quinas"], "no, cinco trenes", True,
     "Corregido: cinco trenes. Beto, te toca.", {"bid.face": 3, "turn": "Beto"}),
    ("correction by the bidder named", {}, ["cinco quinas"], "Ana, no, dije seis quinas", True,
     "Corregido: seis quinas. Beto, te toca.", {"bid.quantity": 6}),
    ("correction by someone else", {}, ["cinco quinas"], "Carla, no, dije seis quinas", False,
     "Ya no se puede corregir: Beto, te toca.", {"bid.quantity": 5}),
    ("correction after another spoke", {}, ["cinco quinas", "seis quinas"],
     "no, dije siete quinas", True, "Corregido: siete quinas. Carla, te toca.",
     {"bid.by": "Beto", "bid.quantity": 7}),
    ("correction after a dudo", {}, ["cinco quinas", "dudo"], "no, dije seis quinas", False,
     "Ya no se puede corregir: ¿Cuántas quinas hay, contando ases?", {"awaiting": "count"}),
    ("correction to an illegal bid keeps the first", {}, ["cinco quinas", "seis quinas"],
     "no, dije dos quinas", False,
     "No vale: después de cinco quinas hay que subir. "
     "Mínimo: cinco sextos, seis de otra pinta o tres ases.", {"bid.quantity": 6}),
    ("nothing to undo", {}, [], "me equivoqué", False, "No hay nada que deshacer.", {}),
    ("new game asks", {}, ["cinco quinas"], "nueva partida", True,
     "¿Empezamos una partida nueva? Digan sí o no.", {"bid.quantity": 5}),
    ("new game confirmed", {}, ["cinco quinas", "nueva partida"], "sí", True,
     "Nueva partida. Parte Ana.", {"bid": None}),
    ("new game cancelled", {}, ["cinco quinas", "nueva partida"], "no", True,
     "Seguimos con la misma partida. Beto, te toca.", {"bid.quantity": 5}),
    ("new game pending refuses a bid", {}, ["cinco quinas", "nueva partida"], "seis quinas",
     False, "Primero respondan: ¿Empezamos una partida nueva? Digan sí o no.", {}),
    # --- one-die rounds
    ("chile obligar question", {"overrides": {"start_dice": 2}}, ["una quina", "dudo"], "0",
     True, "No había ninguna quina: Ana pierde un dado, le queda uno. Ana, ¿obligas?",
     {"awaiting": "obligar", "turn": "Ana"}),
    ("chile obliga yes", {"overrides": {"start_dice": 2}}, ["una quina", "dudo", "0"], "sí",
     True, "Ana obliga. ¿Abierta o cerrada?", {"awaiting": "modality"}),
    ("chile cerrada", {"overrides": {"start_dice": 2}}, ["una quina", "dudo", "0", "sí"],
     "cerrada", True, "Ronda cerrada. Parte Ana.", {"round": "obligar", "awaiting": "bid"}),
    ("obligar round opens with aces", {"overrides": {"start_dice": 2}},
     ["una quina", "dudo", "0", "sí", "abierta"], "un as", True, "Un as. Beto, te toca.", {}),
    ("obligar fixed face", {"overrides": {"start_dice": 2}},
     ["una quina", "dudo", "0", "sí", "abierta", "una quina"], "dos trenes", False,
     "No vale: en esta ronda la pinta es fija. Mínimo: dos quinas.", {}),
    ("obligar counts without aces", {"overrides": {"start_dice": 2}},
     ["una quina", "dudo", "0", "sí", "abierta", "una quina"], "dudo", True,
     "Beto duda. Levanten los cachos. ¿Cuántas quinas hay, sin ases?", {}),
    ("obligar pending refuses a bid", {"overrides": {"start_dice": 2}},
     ["una quina", "dudo", "0"], "una quina", False, "Primero respondan: Ana, ¿obligas?", {}),
    ("dudo obliga asks modality", {"preset": "dudo", "direction": None,
                                   "overrides": {"start_dice": 2}},
     ["una quina", "dudo"], "0", True, "No había ninguna quina: Ana pierde un dado, "
     "le queda uno. Obliga Ana: ¿abierta o cerrada?",
     {"awaiting": "modality", "round": "obligar"}),
    # --- eliminations and the winner
    ("elimination", {"overrides": {"start_dice": 1}}, ["una quina", "dudo"], "0", True,
     "No había ninguna quina: Ana queda fuera. Parte Beto.",
     {"players.0.active": False, "turn": "Beto"}),
    ("winner", {"players": ("Ana", "Beto"), "overrides": {"start_dice": 1}},
     ["una quina", "dudo"], "0", True,
     "No había ninguna quina: Ana queda fuera. ¡Beto gana la partida!",
     {"awaiting": "game_over", "winner": "Beto"}),
    ("after game over", {"players": ("Ana", "Beto"), "overrides": {"start_dice": 1}},
     ["una quina", "dudo", "0"], "dos quinas", False,
     "La partida terminó: ganó Beto. Para jugar otra, digan nueva partida.",
     {"winner": "Beto"}),
    ("query after game over", {"players": ("Ana", "Beto"), "overrides": {"start_dice": 1}},
     ["una quina", "dudo", "0"], "¿cuántos dados hay?", True,
     "Queda un dado: Beto uno.", {}),
    ("count of one ace", {}, ["cinco quinas", "tres ases", "dudo"], "uno", True,
     "Había un as: Beto pierde un dado, le quedan cuatro. Parte Beto.", {}),
    # --- cachito
    ("cachito limpio bid", {"preset": "cachito"}, [], "tres quinas limpias", True,
     "Tres quinas limpias. Beto, te toca.", {"bid.clean": True}),
    ("cachito sucio -> limpio minimum", {"preset": "cachito"}, ["siete quinas"],
     "cuatro sextos limpios", False,
     "No vale: después de siete quinas hay que subir. "
     "Mínimo: siete sextos, ocho de otra pinta o cinco limpios de cualquier pinta.", {}),
    ("cachito limpio minimum", {"preset": "cachito"}, ["tres quinas limpias"],
     "tres trenes limpios", False,
     "No vale: después de tres quinas limpias hay que subir. "
     "Mínimo: tres sextos limpios, cuatro limpios de otra pinta o siete de cualquier pinta.",
     {}),
    ("cachito limpio counts without aces", {"preset": "cachito"}, ["tres quinas limpias"],
     "dudo", True, "Beto duda. Levanten los cachos. ¿Cuántas quinas hay, sin ases?", {}),
    ("cachito asks direction next round", {"preset": "cachito"}, ["tres trenes", "dudo"], "0",
     True, "No había ningún tren: Ana pierde un dado, le quedan cuatro. "
     "Parte Ana: ¿izquierda o derecha?",
     {"awaiting": "direction"}),
    ("cachito palo fijo", {"preset": "cachito", "overrides": {"start_dice": 2}},
     ["una quina", "dudo", "0"], "a la derecha", True,
     "A la derecha. Palo fijo: parte Ana. Todo limpio y sin cambiar la pinta.",
     {"round": "palo_fijo", "direction": "derecha"}),
    ("palo fijo: no paso", {"preset": "cachito", "overrides": {"start_dice": 2}},
     ["una quina", "dudo", "0", "a la derecha", "una quina"], "paso", False,
     "En palo fijo no se pasa.", {}),
    ("cachito calzo adds a life", {"preset": "cachito"}, ["tres quinas", "calzo"], "tres", True,
     "Había tres quinas, justo: Beto gana una vida, ahora tiene seis. "
     "Parte Beto: ¿izquierda o derecha?", {"players.1.dice": 6, "dice_on_table": 15}),
    ("cachito total names lives", {"preset": "cachito"}, ["tres quinas", "calzo", "tres"],
     "¿cuántos dados quedan?", True,
     "Quedan quince dados en la mesa. Vidas: Ana cinco, Beto seis, Carla cinco.", {}),
    ("cachito player lives", {"preset": "cachito"}, ["tres quinas", "calzo", "tres"],
     "¿cuántos dados tiene Beto?", True, "Beto tiene seis vidas: cinco dados en el cacho.", {}),
    ("cachito a life lost", {"preset": "cachito"},
     ["tres quinas", "calzo", "tres", "derecha", "dos trenes", "dudo"], "cero", True,
     "No había ningún tren: Beto pierde una vida, le quedan cinco. "
     "Parte Beto: ¿izquierda o derecha?", {"players.1.dice": 5, "dice_on_table": 15}),
    ("cachito: aces are never called limpios", {"preset": "cachito"},
     ["tres quinas", "tres ases"], "tres ases", False,
     "No vale: después de tres ases hay que subir. "
     "Mínimo: tres tontos limpios, cuatro ases o siete de cualquier pinta.", {}),
    ("cachito clean count answer", {"preset": "cachito"}, ["tres quinas limpias", "dudo"],
     "dos quinas limpias", True,
     "Había dos quinas: Ana pierde un dado, le quedan cuatro. Parte Ana: ¿izquierda o derecha?",
     {"awaiting": "direction"}),
    ("dialect peru", {"dialect": "peru"}, [], "cinco senas", True,
     "Cinco senas. Beto, te toca.", {"bid.face": 6}),
]


def _fact(state: dict, path: str) -> Any:
    value: Any = state
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


@pytest.mark.parametrize(
    ("setup", "prefix", "line", "accepted", "say", "facts"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_line(setup, prefix, line, accepted, say, facts):
    ref = referee(**setup)
    play(ref, prefix)
    before = ref.state()
    reply = ref.handle_text(line)
    assert reply.say == say
    assert reply.accepted is accepted
    if not accepted:
        assert reply.state == before, "a refused line must change nothing"
    for path, value in facts.items():
        assert _fact(reply.state, path) == value, path


def test_the_accept_score_is_the_tables_setting():
    """`asr.accept_score` decides for typed lines too: lower it and the guess is taken."""
    strict = referee()
    lenient = Referee(TableSetup(players=ABC, starter="Ana", direction="izquierda"),
                      accept_score=0.4)
    for ref in (strict, lenient):
        play(ref, ["cinco quinas"])
    refused = strict.handle_text("tres puntos")
    assert not refused.accepted and refused.intent is None
    taken = lenient.handle_text("tres puntos")
    assert taken.accepted and taken.state["bid"]["face"] == 1


def test_opening_asks_who_starts():
    ref = referee(starter="ask", direction=None)
    reply = ref.opening()
    assert reply.heard is None and reply.accepted
    assert reply.say == (
        "Árbitro listo. Jugadores: Ana, Beto y Carla. Reglas: Cacho chileno. "
        "¿Quién parte? Digan, por ejemplo, «parte Ana»."
    )
    assert reply.state["awaiting"] == "starter" and reply.state["direction"] is None
    assert ref.expecting == "starter"


def test_random_starter_is_seeded():
    draws = {
        Referee(TableSetup(players=ABCD, starter="random", seed=seed)).game.turn
        for seed in range(12)
    }
    assert len(draws) > 1  # the seed matters
    again = Referee(TableSetup(players=ABCD, starter="random", seed=5))
    assert again.game.addressed == Referee(TableSetup(ABCD, starter="random", seed=5)).game.turn
    assert again.opening().say.endswith(f"Sorteo: parte {again.game.addressed}. "
                                        f"{again.game.addressed}, ¿izquierda o derecha?")


def test_roll_for_starter_with_tie_and_ace_highest():
    ref = referee(starter="roll", direction="izquierda")
    assert ref.opening().say.endswith("Ana, ¿qué sacaste?")
    assert ref.handle_text("sexto").say == "Beto, ¿qué sacaste?"
    assert ref.state()["turn"] == "Beto"
    refused = ref.handle_text("Carla, un tren")
    assert not refused.accepted and refused.say == "Espera, Carla: le toca a Beto."
    assert ref.handle_text("saqué un seis").say == "Carla, ¿qué sacaste?"
    tie = ref.handle_text("cuadra")
    assert tie.say == "Empate entre Ana y Beto: vuelvan a tirar. Ana, ¿qué sacaste?"
    assert ref.handle_text("quina").accepted
    last = ref.handle_text("as")  # As counts highest
    assert last.say == "Ana una quina y Beto un as: parte Beto."
    assert last.state["turn"] == "Beto" and last.state["awaiting"] == "bid"
    asked = ref.handle_text("me equivoqué")  # who starts is not undone without asking
    assert asked.say == "¿Deshago quién parte? Digan sí o no."
    assert asked.state["awaiting"] == "bid"
    undone = ref.handle_text("sí")
    assert undone.say == "Deshecho: el dado de Beto. Beto, ¿qué sacaste?"
    assert undone.state["awaiting"] == "starter" and undone.state["turn"] == "Beto"


def test_roll_then_the_starter_chooses_the_direction():
    ref = referee(players=("Ana", "Beto"), starter="roll", direction=None)
    assert ref.handle_text("tres").accepted
    assert ref.handle_text("saqué un as").say == (
        "Ana un tren y Beto un as: parte Beto. Beto, ¿izquierda o derecha?"
    )


@pytest.mark.parametrize(
    ("said", "face"),
    [("saqué un cinco", 5), ("saqué cinco", 5), ("me salió un as", 1), ("saqué una quina", 5),
     ("tengo sexto", 6), ("dos", 2)],
)
def test_roll_answers_said_as_people_say_them(said, face):
    ref = referee(players=("Ana", "Beto"), starter="roll")
    assert ref.handle_text(said).accepted
    faces = {1: "un as", 2: "un tonto", 5: "una quina", 6: "un sexto"}
    assert ref.handle_text("tres").say == f"Ana {faces[face]} y Beto un tren: parte " + (
        "Beto." if face in (2,) else "Ana."
    )


def test_expecting_follows_the_question():
    ref = referee(overrides={"start_dice": 2})
    assert ref.expecting == "turn"
    play(ref, ["una quina", "dudo"])
    assert ref.expecting == "count"
    play(ref, ["0"])
    assert ref.expecting == "yes_no"
    play(ref, ["sí"])
    assert ref.expecting == "choice"
    phrases = {p.text for p in ref.allowed_phrases()}
    assert "cerrada" in phrases and "dudo" not in phrases


def test_roll_listens_for_numbers():
    ref = referee(starter="roll")
    assert ref.expecting == "count"
    ref.handle_text("cinco")
    ref.handle_text("tres")
    ref.handle_text("dos")
    assert ref.expecting == "turn"  # Ana rolled highest and opens


def test_replies_carry_announcer_hints():
    ref = referee()
    bid = ref.handle_text("cinco quinas")
    assert bid.kind == "routine" and bid.short and not bid.urgent
    dudo = ref.handle_text("dudo")
    assert dudo.kind == "challenge" and dudo.urgent
    assert ref.handle_text("cuatro").kind == "result"
    assert ref.handle_text("blabla").kind == "reject"


def test_undo_several_steps_back_to_the_start():
    ref = referee()
    start = ref.state()
    play(ref, ["cinco quinas", "dudo", "4", "dos trenes"])
    said = [ref.handle_text(line).say for line in ("me equivoqué", "me equivoqué", "sí")]
    assert said == [
        "Deshecho: dos trenes de Ana. Parte Ana.",
        "¿Deshago el resultado? Ana recupera un dado.",
        "Deshecho: el resultado. ¿Cuántas quinas hay, contando ases?",
    ]
    for _ in range(2):
        assert ref.handle_text("me equivoqué").accepted
    assert ref.state() == start
    assert not ref.handle_text("me equivoqué").accepted


class _ListLog:
    def __init__(self) -> None:
        self.records: list[dict] = []

    def append(self, record: dict) -> None:
        self.records.append(record)


def resumed_after(lines: list[str], **setup: Any) -> str:
    log = _ListLog()
    first = referee(**setup)
    first.log = log
    play(first, lines)
    again = referee(**setup)
    assert again.replay(log.records) == []
    assert again.state() == first.state()
    return again.opening(resumed=True).say


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        # the result was the last line logged: it may never have been said
        (["dos quinas", "calzo", "dos"],
         "Seguimos. Había dos quinas, justo: Beto ganó un dado, ahora tiene seis. Parte Beto."),
        (["cinco quinas", "dudo", "cero"],
         "Seguimos. No había ninguna quina: Ana perdió un dado, le quedan cuatro. Parte Ana."),
        # after a result the table moved on: the standing bid, agreeing in number
        (["cinco quinas", "dudo", "cero", "dos trenes"],
         "Seguimos la partida. Quedan en pie dos trenes, de Ana. Beto, te toca."),
        (["una quina"], "Seguimos la partida. Queda en pie una quina, de Ana. Beto, te toca."),
    ],
)
def test_resume_says_what_may_not_have_been_said(lines, said):
    assert resumed_after(lines) == said


def test_correction_is_logged_so_replay_agrees():
    log = _ListLog()
    ref = referee()
    ref.log = log
    play(ref, ["cinco quinas", "no, dije cuatro quinas"])
    assert [r["intent"]["type"] for r in log.records] == ["bid", "undo", "bid"]
    again = referee()
    assert again.replay(log.records) == []
    assert again.state() == ref.state() and again.state()["bid"]["quantity"] == 4


def test_undo_confirmation_is_logged_so_replay_agrees():
    assert resumed_after(["cinco quinas", "dudo", "cuatro", "me equivoqué", "sí"]) == (
        "Seguimos la partida. ¿Cuántas quinas hay, contando ases?"
    )


def test_the_recognizer_is_offered_what_tables_say_not_only_the_plain_phrases():
    """A name before the call and a filler are offered too: offered only "tres trenes",
    Whisper heard "son cuatro sextos" as "catorce sextos" (a simulated game)."""
    from voice_ref.language.grammar import Level
    from voice_ref.language.inventory import PhraseInventory

    ref = referee()
    offered = {p.text: p.intent for p in ref.allowed_phrases()}
    plain = PhraseInventory(list(ABC)).phrases("turn", level=Level.CORE)
    assert {p.text for p in plain} <= offered.keys()
    assert offered["son cuatro sextos"] == offered["cuatro sextos"]
    named = offered[f"{ABC[2]} tres trenes"]
    assert named.player == ABC[2] and named.quantity == 3 and named.face == 3


def test_the_recognizer_is_offered_the_face_names_the_referee_says():
    """A table that made "dona" its name for the twos (config `[dialect] faces`) is heard
    saying it, though the rule book does not list it and other tables are not offered it."""
    own = {p.text for p in referee(dialect_faces={2: "dona"}).allowed_phrases()}
    assert "dos donas" in own
    assert "dos donas" not in {p.text for p in referee().allowed_phrases()}


def test_only_a_bid_is_held_back_after_an_undo():
    ref = referee(overrides={"start_dice": 2})
    play(ref, ["una quina", "dudo"])
    assert ref.taken_back() is None
    play(ref, ["me equivoqué"])  # the dudo, before the count
    assert ref.expecting == "turn" and ref.taken_back() is None  # a real dudo may follow

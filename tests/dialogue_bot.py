"""A scripted table for end-to-end games: it reads the referee's protocol state and says
the next line, steering each round so that a planned player loses it.

The plan is a list of names (that player loses the next round), ("calzo", name)
(that player calls calzo and is right), ("pass_lose", name) (that player passes, is
doubted and the hand was not valid) or ("pass_ok", name) (passes, is doubted, was
valid: the doubter loses). The bot bids the lowest raise of the same
face, passes now and then, answers "¿obligas?" / "¿abierta o cerrada?" /
direction questions alternately, and reports the counts the plan needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

NUMBERS = {
    1: ("un", "una"),
    2: ("dos", "dos"),
    3: ("tres", "tres"),
    4: ("cuatro", "cuatro"),
    5: ("cinco", "cinco"),
    6: ("seis", "seis"),
    7: ("siete", "siete"),
    8: ("ocho", "ocho"),
    9: ("nueve", "nueve"),
    10: ("diez", "diez"),
}
FACES = {  # singular, plural, feminine
    1: ("as", "ases", False),
    2: ("tonto", "tontos", False),
    3: ("tren", "trenes", False),
    4: ("cuadra", "cuadras", True),
    5: ("quina", "quinas", True),
    6: ("sexto", "sextos", False),
}


def bid_words(quantity: int, face: int, clean: bool = False) -> str:
    singular, plural, feminine = FACES[face]
    words = f"{NUMBERS[quantity][feminine]} {singular if quantity == 1 else plural}"
    if clean and face != 1:
        words += " limpia" if feminine else " limpio"
        words += "" if quantity == 1 else "s"
    return words


class TableBot:
    def __init__(
        self,
        plan: list[Any],
        *,
        starter: str = "Ana",
        passes: bool = True,
        clean_every: int = 0,  # open limpio every n-th round (cachito)
        start_dice: int = 5,
    ) -> None:
        self.plan = list(plan)
        self.starter = starter
        self.passes = passes
        self.clean_every = clean_every
        self.start_dice = start_dice
        self.round = 0
        self.passed: set[str] = set()
        self.last_pass_by: str | None = None
        self.pending: tuple[str, str, str] | None = None  # (kind, challenger, target)
        self.toggles: dict[str, int] = {}
        self.lines: list[str] = []

    def _toggle(self, key: str, options: tuple[str, ...]) -> str:
        n = self.toggles.get(key, 0)
        self.toggles[key] = n + 1
        return options[n % len(options)]

    def _goal(self, state: dict) -> tuple[str, str]:
        active = {p["name"] for p in state["players"] if p["active"]}
        while self.plan:
            step = self.plan[0]
            kind, name = step if isinstance(step, tuple) else ("lose", step)
            if name in active:
                return kind, name
            self.plan.pop(0)
        raise AssertionError("the plan ran out before the game ended")

    def next_line(self, state: dict) -> str | None:
        line = self._next(state)
        if line is not None:
            self.lines.append(line)
        return line

    def _next(self, state: dict) -> str | None:
        awaiting = state["awaiting"]
        turn = state["turn"]
        if awaiting == "game_over":
            return None
        if awaiting == "starter":
            return f"parte {self.starter}"
        if awaiting == "direction":
            return self._toggle("direction", ("a la izquierda", "a la derecha"))
        if awaiting == "obligar":
            return self._toggle("obligar", ("sí", "no"))
        if awaiting == "modality":
            return self._toggle("modality", ("cerrada", "abierta"))
        if awaiting in ("count", "pass_check"):
            return self._answer(state)
        kind, target = self._goal(state)
        bid = state["bid"]
        dice = {p["name"]: p["dice"] for p in state["players"]}
        if bid is None:  # a new round opens
            self.round += 1
            self.passed = set()
            self.last_pass_by = None
            face = 3 + self.round % 4  # trenes, cuadras, quinas, sextos in turn
            clean = bool(self.clean_every) and self.round % self.clean_every == 0
            return bid_words(1, face, clean)
        if kind in ("pass_lose", "pass_ok") and bid["by"] != turn:
            if turn == target and turn not in self.passed:
                self.passed.add(turn)
                self.last_pass_by = turn
                return "paso"
            if self.last_pass_by == target:
                loser = target if kind == "pass_lose" else turn
                self.pending = ("dudo", turn, loser)
                return "dudo"
        if kind == "calzo" and turn == target and self._calzo_ok(state, turn):
            self.pending = ("calzo", turn, target)
            return "calzo"
        if kind == "lose" and target in (turn, bid["by"], self.last_pass_by):
            self.pending = ("dudo", turn, target)
            return "dudo"
        active = [p for p in state["players"] if p["active"]]
        if (
            self.passes
            and self.last_pass_by is None
            and turn not in self.passed
            and dice[turn] == 5
            and len(active) >= 3
            and state["round"] == "normal"
            and self.round % 2 == 0
        ):
            self.passed.add(turn)
            self.last_pass_by = turn
            return "paso"
        self.last_pass_by = None
        return bid_words(bid["quantity"] + 1, bid["face"], bid["clean"])

    def _calzo_ok(self, state: dict, caller: str) -> bool:
        original = len(state["players"]) * self.start_dice
        dice = {p["name"]: p["dice"] for p in state["players"]}
        return 2 * state["dice_on_table"] >= original or dice[caller] == 1

    def _answer(self, state: dict) -> str:
        assert self.pending is not None
        kind, challenger, target = self.pending
        self.pending = None
        self.plan.pop(0)
        bid = state["bid"]
        if state["awaiting"] == "pass_check":
            passer = self.last_pass_by
            self.last_pass_by = None
            return "no" if target == passer else "sí"
        self.last_pass_by = None
        q = bid["quantity"]
        if kind == "calzo":
            return f"hay {q}"
        if target == challenger:
            return str(q)  # the bid was right: the doubter loses
        return "cero"  # the bid was wrong: the bidder loses


def play_game(send: Callable[[str], dict], opening: dict, bot: TableBot, limit: int = 600):
    """Drive a referee to the end; returns every reply (opening first)."""
    replies = [opening]
    state = opening["state"]
    for _ in range(limit):
        line = bot.next_line(state)
        if line is None:
            return replies
        reply = send(line)
        assert reply["accepted"], f"{line!r} refused: {reply['say']}"
        replies.append(reply)
        state = reply["state"]
    raise AssertionError("the game did not end")

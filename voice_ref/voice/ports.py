"""What the listening loop needs from the referee, the announcer and the display.

Small structural types, so `voice/session.py` names exactly what it uses and a test or a
simulated table can plug in its own parts. The real ones are `dialogue.referee.Referee`,
`voice.announcer.Announcer` and the displays of `voice.display`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from voice_ref.dialogue.protocol import Reply
from voice_ref.language.intents import Intent
from voice_ref.language.inventory import Phrase
from voice_ref.rules.bid import Bid
from voice_ref.rules.faces import Face
from voice_ref.rules.game import Challenge
from voice_ref.rules.moves import Move
from voice_ref.voice.display import TableView


class PromptsPort(Protocol):
    def say(self, key: str, **values: object) -> str:
        """The referee's sentence for a prompt key (prompts/es.toml)."""
        ...


class SpeakerPort(Protocol):
    def bid(self, quantity: int, face: Face | int, clean: bool = False) -> str:
        """A bid in the table's words ("cuatro quinas")."""
        ...


class GamePort(Protocol):
    @property
    def bid(self) -> Bid | None: ...

    @property
    def dice_on_table(self) -> int: ...

    def minimum_bids(self) -> Sequence[Bid]:
        """The lowest legal raises over the standing bid."""
        ...

    @property
    def challenge(self) -> Challenge | None:
        """The dudo / calzo / doubted pass waiting for the count, if any."""
        ...

    def aces_count_for(self, bid: Bid) -> bool:
        """Whether aces would count for `bid` if the table counted now."""
        ...

    @property
    def move_stack(self) -> Sequence[Move]:
        """The moves so far: the decision layer knows the game moved on by its length."""
        ...


class RefereePort(Protocol):
    """The referee as the loop and the decision layer use it: intents in, replies (already
    logged) out, and what it knows to judge what was heard."""

    @property
    def players(self) -> tuple[str, ...]: ...

    @property
    def expecting(self) -> str: ...

    @property
    def speaker(self) -> SpeakerPort: ...

    @property
    def prompts(self) -> PromptsPort: ...

    @property
    def game(self) -> GamePort: ...

    def opening(self) -> Reply: ...

    def handle_intent(self, intent: Intent, heard: str | None = None) -> Reply: ...

    def allowed_phrases(self) -> Sequence[Phrase]: ...

    def phrases_for(self, expecting: str, canonical: bool = False) -> Sequence[Phrase]: ...

    def is_legal(self, intent: Intent) -> bool: ...

    def taken_back(self) -> Bid | None: ...

    def corrected(self) -> bool: ...

    def count_taken_back(self) -> int | None: ...


class AnnouncerPort(Protocol):
    """The loudspeaker: says lines in order and knows when its voice is in the air."""

    @property
    def speaking(self) -> bool: ...

    def say(self, text: str, *, urgent: bool = False) -> None: ...

    def deaf_at(self, t: float) -> bool: ...


class DisplayPort(Protocol):
    """The table screen (rich, plain text, or nothing)."""

    def start(self) -> None: ...

    def update(self, view: TableView) -> None: ...

    def stop(self) -> None: ...

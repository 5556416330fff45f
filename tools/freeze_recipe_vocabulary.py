"""Write what `voice-ref models adapt` has its voices say, from today's grammar and prompts.

    python tools/freeze_recipe_vocabulary.py [--out voice_ref/adaptation/recipe_vocabulary.json.gz]

The adaptation reads a frozen snapshot (`adaptation.clips.RECIPE_VOCABULARY`), so the phrase
inventory, the simulator's table talk and the referee's prompt lines can grow without
changing the model `.ci/run` builds (the one BENCHMARKS.md measured). Running this over
the snapshot is a change of the recipe: the next adapt builds another model, which is to be
measured before its numbers are claimed (then update `RECIPE_VOCABULARY_SHA256` in
tests/test_adaptation.py, `.ci/run`'s MEASURED_MODEL_SHA256 and the README's SHA-256).

Frozen: bids and count answers (the inventory of `chile` at `Level.COMMON`, with their
numbers), the other game phrases, the sentences (TABLE_TALK and the placeholder-free lines
of `RECIPE_PROMPT_SECTIONS`), short sounds that are no game word, and the game's words
(the dictionary words drawn as table talk leave them out). The dictionary itself is read
when the clips are built (`wspanish`).
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path

from voice_ref.adaptation.clips import NAMES, RECIPE_VOCABULARY, FrozenVocabulary
from voice_ref.dialogue.prompts import DEFAULT_PROMPTS
from voice_ref.language.expecting import Expecting
from voice_ref.language.grammar import Level
from voice_ref.language.intents import BidIntent, NameOnlyIntent, NumberIntent
from voice_ref.language.inventory import PhraseInventory
from voice_ref.simulation.phrasing import TABLE_TALK

# The prompts/es.toml sections whose lines the measured recipe says as table talk (every
# section there was when m8/m11 were built; BENCHMARKS.md, sessions 30-39). Lines of later
# sections (the microphone check, the device warnings) were never in it.
RECIPE_PROMPT_SECTIONS = frozenset({
    "opening", "words", "rules_name", "ask", "announce", "result", "undone", "query",
    "minimum", "reject", "illegal",
})
# Short sounds people make at a table, which must stay table talk (a real "oh" was taken
# as *dudo* on tuning-real), for `--sounds`; left out when they are game words.
SOUNDS = ("oh", "ah", "eh", "uf", "ay", "uy", "bah", "guau", "ajá", "ja ja", "je je", "mmm",
          "pss", "ce", "be", "o", "a", "hala", "ojo", "ole", "vaya")


def current_vocabulary() -> FrozenVocabulary:
    """What the recipe would say with today's grammar, prompts and table talk."""
    inventory = PhraseInventory(NAMES, "chile")
    bids, game = [], []
    for phrase in inventory.phrases(Expecting.ANY, level=Level.COMMON):
        intent = phrase.intent
        if isinstance(intent, BidIntent):
            bids.append((phrase.text, intent.quantity))
        elif not isinstance(intent, NameOnlyIntent | NumberIntent):
            game.append(phrase.text)
    counts = [(p.text, p.intent.value)
              for p in inventory.phrases(Expecting.COUNT, level=Level.COMMON)
              if isinstance(p.intent, NumberIntent)]
    game_words = sorted({w.casefold() for w in inventory.words()})
    prompts = tomllib.loads(DEFAULT_PROMPTS.read_text(encoding="utf-8"))
    missing = RECIPE_PROMPT_SECTIONS - set(prompts)
    if missing:
        raise SystemExit(f"prompts/es.toml has no section {sorted(missing)}: the recipe's "
                         "sentences would silently shrink")
    lines = [v for name, section in prompts.items()
             if name in RECIPE_PROMPT_SECTIONS and isinstance(section, dict)
             for v in section.values()
             if isinstance(v, str) and "{" not in v and len(v.split()) > 1]
    sounds = [w for w in SOUNDS if w not in game_words]
    return FrozenVocabulary(bids, counts, game, [*TABLE_TALK, *lines], sounds, game_words)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=RECIPE_VOCABULARY)
    args = ap.parse_args()
    current_vocabulary().write(args.out)
    print(f"wrote {args.out}: the next `voice-ref models adapt` builds another model; "
          "measure it (BENCHMARKS.md) before claiming its numbers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

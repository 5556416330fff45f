"""One Spanish grammar that both listens and understands (as hassil does).

The sentence rules are data (`vocabulary.TEMPLATES`: hassil-like templates with
`[optional]`, `(a | b)`, `{slot}` and `<expansion>`), the slot lists come from
the vocabulary tables. Both directions walk the same rule tree:

- `Grammar.sample(expecting, level)` lists the phrases of a listening context,
  with their intents (the phrase inventory, for the recognizers);
- `Grammar.match(tokens)` reads folded tokens back into an intent (the parser's
  exact stage; `parser.Parser` adds the fuzzy correction pass in front).

Sampling keeps a phrase's words in agreement ("una quina limpia", "veintiún
trenes"); matching tolerates the slips people make ("veintiuno quinas"),
except where the slip changes the meaning (a face said as a number must agree:
"cuatro cincos" is a bid, "cuatro cinco" is not). Sampling is bounded by a
`Level`: no decorations (`CORE`), at most one (`COMMON`, the live recognizers' lists:
a name, a filler, "yo", a face said as a number; the bench's lists), or every
expansion (`ALL`, the round-trip check). Each optional part, slot value and uncommon
rule says what it costs; rare decorations ("a ver", "no más", "no te creo", a
correction's "no, dije") cost `RARE`, so only `ALL` lists them, though all are matched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import combinations_with_replacement
from typing import Protocol

from voice_ref.language.expecting import Expecting
from voice_ref.language.intents import (
    BidIntent,
    ChoiceIntent,
    CorrectionIntent,
    HandIntent,
    Intent,
    NumberIntent,
    QueryIntent,
    plain_intent,
)
from voice_ref.language.numbers import MAX_NUMBER, number_to_words, read_number
from voice_ref.language.text import tokenize

Tokens = tuple[str, ...]
Feats = tuple[tuple[str, str], ...]  # grammatical features: ("g", "f"), ("n", "pl")
SAMPLE_MAX_QUANTITY = 60  # bids and counts listed: 1..60 dice (12 players x 5)


class Level(IntEnum):
    """How many decorations a sampled phrase may carry (optional parts, variant forms)."""

    CORE = 0  # "cinco quinas", "dudo", "a quién le toca"
    COMMON = 1  # + one of: a name, a filler, "yo", a listed hand, a face said as a number
    ALL = 99  # + the rare ones ("a ver", "no más", "no te creo", corrections); large


RARE = 2  # the cost of a decoration listed only at Level.ALL


@dataclass(frozen=True, slots=True)
class SlotValue:
    """One entry of a slot list. `cost`: decorations it counts for when sampled (see `Level`)."""

    text: str
    value: object
    feats: Feats = ()
    cost: int = 0
    strict: bool = False  # matching checks this value's agreement too
    tokens: Tokens = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if not self.tokens:
            object.__setattr__(self, "tokens", tuple(tokenize(self.text)))


@dataclass(frozen=True, slots=True)
class SampleOptions:
    max_quantity: int = SAMPLE_MAX_QUANTITY
    clean_bids: bool = False


class Slot(Protocol):
    def match(self, tokens: Tokens, i: int) -> Iterator[tuple[int, SlotValue]]: ...

    def sample(self, options: SampleOptions) -> Iterable[SlotValue]: ...

    def words(self) -> set[str]: ...


class ListSlot:
    """A fixed list of values ("quina" -> 5, "Ana" -> "Ana").

    A value with empty text means "nothing said" (a bid without "limpio" is not clean);
    `sampled` may hide the spoken values from the sampler (clean bids off).
    """

    def __init__(
        self, values: Iterable[SlotValue], sampled: Callable[[SampleOptions], bool] | None = None
    ) -> None:
        self.values = tuple(values)
        self._silent = tuple(v for v in self.values if not v.tokens)
        self._sampled = sampled
        self._index: dict[Tokens, list[SlotValue]] = {}
        for v in self.values:
            if v.tokens:
                self._index.setdefault(v.tokens, []).append(v)
        self._lengths = sorted({len(t) for t in self._index}, reverse=True)

    def match(self, tokens: Tokens, i: int) -> Iterator[tuple[int, SlotValue]]:
        for n in self._lengths:
            for v in self._index.get(tokens[i : i + n], ()):
                yield i + n, v
        for v in self._silent:
            yield i, v

    def sample(self, options: SampleOptions) -> Iterable[SlotValue]:
        if self._sampled is not None and not self._sampled(options):
            return self._silent
        return self.values

    def words(self) -> set[str]:
        return {w for t in self._index for w in t}


class NumberSlot:
    """A number said in words or digits. Sampled 0/1..max_quantity; matched 0..999 and any digits.

    `article=True` samples the forms said before a noun ("un as", "una quina",
    "veintiún trenes"); otherwise bare counts ("uno", "una", "veintiuno", "ninguna").
    """

    def __init__(self, article: bool) -> None:
        self.article = article

    def match(self, tokens: Tokens, i: int) -> Iterator[tuple[int, SlotValue]]:
        if i < len(tokens) and tokens[i].isdigit():
            value = int(tokens[i])
            yield i + 1, SlotValue(tokens[i], value, _number_feats(value), tokens=(tokens[i],))
            return
        found = read_number(tokens, i)
        if found is not None:
            value, end = found
            yield end, SlotValue(" ".join(tokens[i:end]), value, _number_feats(value))

    def sample(self, options: SampleOptions) -> Iterable[SlotValue]:
        top = min(options.max_quantity, MAX_NUMBER)
        for n in range(1 if self.article else 0, top + 1):
            masc = number_to_words(n, apocope=self.article)
            fem = number_to_words(n, feminine=True)
            num = _number_feats(n)
            if masc == fem:
                yield SlotValue(masc, n, num)
            else:
                yield SlotValue(masc, n, (("g", "m"), *num))
                yield SlotValue(fem, n, (("g", "f"), *num))
        if not self.article:
            yield SlotValue("ninguno", 0, (("g", "m"),))
            yield SlotValue("ninguna", 0, (("g", "f"),))

    def words(self) -> set[str]:
        from voice_ref.language.numbers import number_words

        return number_words()


def _number_feats(n: int) -> Feats:
    return (("n", "sg" if n == 1 else "pl"),)


class HandSlot:
    """Dice dictated for a pass check: grouped ("dos ases y tres sextos"), listed ("as, as,
    quina, sexto, sexto"), as pips ("uno, uno, cinco, seis, seis") or "todas quinas".

    Repetition does not fit a template, so the hand is one slot that both samples and matches.
    """

    def __init__(
        self,
        faces: Mapping[str, tuple[int, bool]],  # folded face word -> (face, feminine)
        spoken: Mapping[int, tuple[str, str, bool]],  # face -> (singular, plural, feminine)
        all_words: tuple[str, str],  # ("todos", "todas")
        and_word: str,
        min_dice: int,
        max_dice: int,
        numerals: Mapping[int, tuple[str, str]] | None = None,  # face -> ("cinco", "cincos")
    ) -> None:
        self.numerals = dict(numerals or {})
        self._singular_numerals = {
            tokenize(singular)[0]: (face, False) for face, (singular, _) in self.numerals.items()
        }
        self.faces = dict(faces)
        self.spoken = dict(spoken)
        self.all_words = all_words
        self.and_word = and_word
        self.min_dice, self.max_dice = min_dice, max_dice

    def words(self) -> set[str]:
        return set(self.faces) | set(self.all_words) | {self.and_word}

    def match(self, tokens: Tokens, i: int) -> Iterator[tuple[int, SlotValue]]:
        # A hand always runs to the end of the utterance (nothing may follow it).
        words = tokens[i:]
        faces = self._read(words)
        if faces is not None:
            yield len(tokens), SlotValue(" ".join(words), faces)

    def _read(self, words: Tokens) -> tuple[int, ...] | None:
        if len(words) == 2 and words[0] in self.all_words and words[1] in self.faces:
            return (self.faces[words[1]][0],) * 5
        return self._pips(words) or self._groups(words)

    def _groups(self, words: Tokens) -> tuple[int, ...] | None:
        faces: list[int] = []
        groups = i = 0
        while i < len(words):
            if groups and words[i] == self.and_word:
                i += 1
            count, counted = 1, False
            number = read_number(words, i)
            if number is not None and words[i] not in self.faces:
                (count, i), counted = number, True
            face = self.faces.get(words[i]) if i < len(words) else None
            if face is None and counted and count == 1 and i < len(words):
                face = self._singular_numerals.get(words[i])  # "un dos"
            if face is None or not 1 <= count <= 5:
                return None
            faces.extend([face[0]] * count)
            groups += 1
            i += 1
        if groups < 2 or not self.min_dice <= len(faces) <= self.max_dice:
            return None
        return tuple(faces)

    def _pips(self, words: Tokens) -> tuple[int, ...] | None:
        faces: list[int] = []
        i = 0
        while i < len(words) and len(faces) < 5:
            if faces and words[i] == self.and_word:
                i += 1
            number = read_number(words, i)
            if number is None or not 1 <= number[0] <= 6:
                return None
            faces.append(number[0])
            i = number[1]
        return tuple(faces) if i == len(words) and len(faces) == 5 else None

    def sample(self, options: SampleOptions) -> Iterable[SlotValue]:
        for hand in combinations_with_replacement(range(1, 7), 5):
            groups = [(face, hand.count(face)) for face in sorted(set(hand))]
            if len(groups) == 1:
                singular, plural, feminine = self.spoken[hand[0]]
                yield SlotValue(f"{self.all_words[1 if feminine else 0]} {plural}", hand)
            else:
                said = [self._group(face, n) for face, n in groups]
                yield SlotValue(f"{' '.join(said[:-1])} {self.and_word} {said[-1]}", hand)
            yield SlotValue(" ".join(self.spoken[f][0] for f in hand), hand, cost=1)
            if self.numerals and len(groups) > 1:  # "dos cincos y tres seises"
                said = [
                    f"{number_to_words(n)} {self.numerals[face][0 if n == 1 else 1]}"
                    for face, n in groups
                ]
                text = f"{' '.join(said[:-1])} {self.and_word} {said[-1]}"
                yield SlotValue(text, hand, cost=RARE)
            pips = [number_to_words(f, apocope=False) for f in hand]
            yield SlotValue(f"{' '.join(pips[:-1])} {self.and_word} {pips[-1]}", hand, cost=1)

    def _group(self, face: int, n: int) -> str:
        singular, plural, feminine = self.spoken[face]
        return f"{number_to_words(n, feminine=feminine)} {singular if n == 1 else plural}"


# --- the rule tree -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Words:
    tokens: Tokens
    text: str


@dataclass(frozen=True, slots=True)
class SlotRef:
    """`{list}` or `{list:name}` (hassil): values of `list`, bound under `name`."""

    list: str
    name: str


@dataclass(frozen=True, slots=True)
class Seq:
    parts: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    options: tuple[Expr, ...]
    optional: bool = False  # `[...]`: absent is allowed, and present is a decoration


Expr = Words | SlotRef | Seq | Alt

_TEMPLATE_TOKEN = re.compile(r"\[|\]|\(|\)|\||\{\w+(?::\w+)?\}|<\w+>|[^\s\[\]()|{}<>]+")


def parse_template(text: str, expansions: Mapping[str, str] | None = None) -> Expr:
    """hassil-like template -> expression tree. `<name>` inlines `expansions[name]`."""
    expansions = expansions or {}
    pieces = _TEMPLATE_TOKEN.findall(text)
    pos = 0

    def alternatives(close: str | None) -> Expr:
        nonlocal pos
        options: list[Expr] = []
        seq: list[Expr] = []
        while pos < len(pieces):
            piece = pieces[pos]
            pos += 1
            if piece == close:
                break
            if piece == "|":
                options.append(_seq(seq))
                seq = []
            elif piece == "[":
                inner = alternatives("]")
                opts = inner.options if isinstance(inner, Alt) else (inner,)
                seq.append(Alt(opts, optional=True))
            elif piece == "(":
                seq.append(alternatives(")"))
            elif piece in (")", "]"):
                raise ValueError(f"unbalanced {piece!r} in template {text!r}")
            elif piece.startswith("{"):
                list_name, _, name = piece[1:-1].partition(":")
                seq.append(SlotRef(list_name, name or list_name))
            elif piece.startswith("<"):
                seq.append(parse_template(expansions[piece[1:-1]], expansions))
            else:
                seq.append(Words(tuple(tokenize(piece)), piece))
        else:
            if close is not None:
                raise ValueError(f"missing {close!r} in template {text!r}")
        options.append(_seq(seq))
        return options[0] if len(options) == 1 else Alt(tuple(options))

    return alternatives(None)


def _seq(parts: list[Expr]) -> Expr:
    return parts[0] if len(parts) == 1 else Seq(tuple(parts))


Binds = tuple[tuple[str, SlotValue], ...]


def _agrees(binds: Binds, value: SlotValue) -> bool:
    for _, other in binds:
        for key, feat in value.feats:
            for okey, ofeat in other.feats:
                if key == okey and feat != ofeat:
                    return False
    return True


@dataclass(frozen=True, slots=True)
class Rule:
    """One template and the intent it means; `contexts` are where it is sampled."""

    key: str  # "bid", "dudo", "query:dice", "choice:izquierda" ... (see `build_intent`)
    template: str
    contexts: frozenset[Expecting]
    expr: Expr
    cost: int = 0  # decorations the whole rule counts for when sampled (uncommon rules: 1)


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str
    intent: Intent


class Grammar:
    """The rule tree plus its slot lists, for one table (players, clean bids, quantities)."""

    def __init__(
        self,
        rules: Sequence[Rule],
        slots: Mapping[str, Slot],
        options: SampleOptions = SampleOptions(),
    ) -> None:
        self.rules = tuple(rules)
        self.slots = dict(slots)
        self.options = options
        for rule in self.rules:
            for name in _slot_names(rule.expr):
                if name not in self.slots:
                    raise ValueError(f"rule {rule.template!r} uses unknown slot {{{name}}}")

    # --- matching ----------------------------------------------------------------------

    def match(self, tokens: Sequence[str]) -> Intent | None:
        """The intent of exactly these folded tokens (first rule that explains all), or None."""
        toks = tuple(tokens)
        if not toks:
            return None
        for rule in self.rules:
            for end, binds in self._match(rule.expr, toks, 0, ()):
                if end == len(toks) and _strict_ok(binds):
                    intent = build_intent(rule.key, dict(binds))
                    if intent is not None:
                        return intent
        return None

    def _match(self, expr: Expr, toks: Tokens, i: int, binds: Binds) -> Iterator[tuple[int, Binds]]:
        match expr:
            case Words(tokens=words):
                if toks[i : i + len(words)] == words:
                    yield i + len(words), binds
            case SlotRef(list=list_name, name=name):
                for end, value in self.slots[list_name].match(toks, i):
                    yield end, (*binds, (name, value))
            case Seq(parts=parts):
                yield from self._match_seq(parts, toks, i, binds)
            case Alt(options=options, optional=optional):
                for option in options:
                    yield from self._match(option, toks, i, binds)
                if optional:
                    yield i, binds

    def _match_seq(
        self, parts: tuple[Expr, ...], toks: Tokens, i: int, binds: Binds
    ) -> Iterator[tuple[int, Binds]]:
        if not parts:
            yield i, binds
            return
        for end, got in self._match(parts[0], toks, i, binds):
            yield from self._match_seq(parts[1:], toks, end, got)

    # --- sampling ----------------------------------------------------------------------

    def sample(
        self, expecting: Expecting | str = Expecting.ANY, level: Level = Level.COMMON
    ) -> list[Phrase]:
        """Every phrase of a context (ANY: all contexts), each text once, in rule order."""
        context = Expecting(expecting)
        seen: set[str] = set()
        out: list[Phrase] = []
        for rule in self.rules:
            if context is not Expecting.ANY and context not in rule.contexts:
                continue
            budget = int(level) - rule.cost
            if budget < 0:
                continue
            for words, binds, _ in self._expand(rule.expr, budget, ()):
                text = " ".join(words)
                if text in seen:
                    continue
                intent = build_intent(rule.key, dict(binds))
                if intent is not None:
                    seen.add(text)
                    out.append(Phrase(text, intent))
        return out

    def _expand(
        self, expr: Expr, budget: int, binds: Binds
    ) -> Iterator[tuple[tuple[str, ...], Binds, int]]:
        """(words, binds, decorations used) for every expansion within `budget` decorations."""
        match expr:
            case Words(text=text):
                yield (text,), binds, 0
            case SlotRef(list=list_name, name=name):
                for value in self.slots[list_name].sample(self.options):
                    cost = value.cost
                    if cost <= budget and _agrees(binds, value):
                        words = (value.text,) if value.text else ()
                        yield words, (*binds, (name, value)), cost
            case Seq(parts=parts):
                yield from self._expand_seq(parts, budget, binds)
            case Alt(options=options, optional=optional):
                if optional:
                    yield (), binds, 0
                    if budget < 1:
                        return
                    for option in options:
                        for words, got, used in self._expand(option, budget - 1, binds):
                            yield words, got, used + 1
                else:
                    for option in options:
                        yield from self._expand(option, budget, binds)

    def _expand_seq(
        self, parts: tuple[Expr, ...], budget: int, binds: Binds
    ) -> Iterator[tuple[tuple[str, ...], Binds, int]]:
        if not parts:
            yield (), binds, 0
            return
        for words, got, used in self._expand(parts[0], budget, binds):
            for rest, final, more in self._expand_seq(parts[1:], budget - used, got):
                yield words + rest, final, used + more

    def words(self) -> set[str]:
        """Every folded word the grammar can match (its literals and slot lists)."""
        out: set[str] = set()
        for rule in self.rules:
            out |= _literal_words(rule.expr)
        for slot in self.slots.values():
            out |= slot.words()
        return out


def _strict_ok(binds: Binds) -> bool:
    for n, (_, value) in enumerate(binds):
        if value.strict and not _agrees(binds[:n] + binds[n + 1 :], value):
            return False
    return True


def _slot_names(expr: Expr) -> set[str]:
    match expr:
        case SlotRef(list=list_name):
            return {list_name}
        case Seq(parts=parts):
            return set().union(*(_slot_names(p) for p in parts))
        case Alt(options=options):
            return set().union(*(_slot_names(o) for o in options))
    return set()


def _literal_words(expr: Expr) -> set[str]:
    match expr:
        case Words(tokens=tokens):
            return set(tokens)
        case Seq(parts=parts):
            return set().union(*(_literal_words(p) for p in parts))
        case Alt(options=options):
            return set().union(*(_literal_words(o) for o in options))
    return set()


def build_intent(key: str, slots: Mapping[str, SlotValue]) -> Intent | None:
    """The intent a rule key means, given its filled slots (None if they make no intent)."""
    player_value = slots.get("player")
    player = None if player_value is None else str(player_value.value)
    kind, _, arg = key.partition(":")

    def num(name: str, default: int = 0) -> int:
        value = slots.get(name)
        return default if value is None else int(value.value)  # type: ignore[call-overload]

    clean_value = slots.get("clean")
    clean = bool(clean_value.value) if clean_value is not None else False
    match kind:
        case "bid":
            return BidIntent(num("quantity", 1), num("face"), clean, player=player)
        case "correction":
            return CorrectionIntent(num("quantity", 1), num("face"), clean, player=player)
        case "number":
            return NumberIntent(num("count"), player=player)
        case "query":
            return QueryIntent(arg, player=player)  # type: ignore[arg-type]
        case "choice":
            return ChoiceIntent(arg, player=player)  # type: ignore[arg-type]
        case "hand":
            hand = slots.get("hand")
            if hand is None:
                return None
            return HandIntent(tuple(hand.value), player=player)  # type: ignore[call-overload]
    return plain_intent(kind, player)


# --- the Spanish grammar of the game -------------------------------------------------------

MIN_HAND_DICE = 3  # two bare faces are more likely noise than a hand
MAX_HAND_DICE = 10


def _face_feats(feminine: bool, plural: bool) -> Feats:
    return (("g", "f" if feminine else "m"), ("n", "pl" if plural else "sg"))


def spanish_slots(
    players: Sequence[str] = (), dialect: str = "chile", faces: Mapping[int, str] | None = None
) -> dict[str, Slot]:
    """The slot lists of `vocabulary.TEMPLATES`, from the vocabulary tables. `faces`: the
    table's own face names (config `[dialect] faces`), offered even if the rule book does
    not list them."""
    from voice_ref.language import vocabulary as v

    def plain(texts: Iterable[str], cost: int = 0) -> ListSlot:
        return ListSlot(SlotValue(t, None, cost=cost) for t in texts)

    said = set(v.dialect_faces(dialect, faces).values())

    def offered_cost(fw: v.FaceWord) -> int:
        """0, or RARE for a name neither the rule book lists nor this table's referee
        says: matched, but sampled only at Level.ALL."""
        return 0 if fw.listed or fw in said else RARE

    faces = [
        SlotValue(word, fw.face, _face_feats(fw.feminine, plural), cost=offered_cost(fw))
        for fw in v.FACE_WORDS
        for word, plural in ((fw.singular, False), (fw.plural, True))
    ]
    # A face said as a number must agree ("cuatro cincos"): "cuatro cinco" is not a bid.
    # Offered to the recognizers only where tables commonly say them (measured: on the
    # Chilean DEV clips "cinco cuatros" next to "cinco cuadras" cost a clip); always matched.
    numeral_cost = 1 if dialect in v.NUMERAL_FACE_DIALECTS else RARE
    faces += [
        SlotValue(fw.plural, fw.face, _face_feats(False, True), cost=numeral_cost, strict=True)
        for fw in v.NUMERAL_FACES
    ]
    rolls = []
    for fw in (*v.FACE_WORDS, *v.NUMERAL_FACES):
        article = "una" if fw.feminine else "un"
        rolls.append(SlotValue(f"{article} {fw.singular}", fw.face, cost=offered_cost(fw)))
        rolls.append(SlotValue(fw.singular, fw.face, cost=max(1, offered_cost(fw))))
    spoken = {
        face: (fw.singular, fw.plural, fw.feminine) for face, fw in v.dialect_faces(dialect).items()
    }
    hand_faces = {
        tokenize(w)[0]: (fw.face, fw.feminine)
        for fw in v.FACE_WORDS
        for w in (fw.singular, fw.plural)
    }
    hand_faces |= {tokenize(fw.plural)[0]: (fw.face, False) for fw in v.NUMERAL_FACES}
    clean = [
        SlotValue(
            word,
            value,
            _face_feats(word[-1] == "a" or word.endswith("as"), word.endswith("s")),
            cost=0 if value else 1,
        )
        for word, value in v.CLEAN_WORDS.items()
    ]
    return {
        "player": ListSlot(SlotValue(p, p) for p in players),
        "quantity": NumberSlot(article=True),
        "count": NumberSlot(article=False),
        "face": ListSlot(faces),
        "numeral": ListSlot(
            SlotValue(fw.singular, fw.face, cost=0 if numeral_cost == 1 else RARE)
            for fw in v.NUMERAL_FACES[1:]
        ),
        "roll": ListSlot(rolls),
        "clean": ListSlot([SlotValue("", False), *clean], sampled=lambda o: o.clean_bids),
        "bid_filler": plain(v.BID_FILLERS),
        "number_filler": plain(v.NUMBER_FILLERS),
        "hand_filler": plain(v.HAND_FILLERS, RARE),
        "zero": ListSlot(SlotValue(t, 0, cost=1) for t in v.ZERO_PHRASES),
        "bid_lead": plain(v.BID_LEADS, RARE),
        "only": plain(v.ONLY, RARE),
        "doubt_lead": plain(v.DOUBT_LEADS, RARE),
        "call_end": plain(v.CALL_ENDS, RARE),
        "correction_lead": plain(v.CORRECTION_LEADS, RARE),
        "direction_prefix": plain(v.DIRECTION_PREFIXES),
        "hand": HandSlot(
            hand_faces,
            spoken,
            v.HAND_ALL,
            v.AND,
            MIN_HAND_DICE,
            MAX_HAND_DICE,
            {fw.face: (fw.singular, fw.plural) for fw in v.NUMERAL_FACES},
        ),
    }


def spanish_rules() -> list[Rule]:
    from voice_ref.language import vocabulary as v

    return [
        Rule(
            key,
            template,
            frozenset(contexts),
            parse_template(template, v.EXPANSIONS),
            cost=1 if template in v.UNCOMMON_TEMPLATES else 0,
        )
        for key, contexts, template in v.TEMPLATES
    ]


def spanish_grammar(
    players: Sequence[str] = (),
    dialect: str = "chile",
    clean_bids: bool = False,
    max_quantity: int = SAMPLE_MAX_QUANTITY,
    faces: Mapping[int, str] | None = None,
) -> Grammar:
    """The game's grammar for one table (`faces`: its own face names, `spanish_slots`)."""
    return Grammar(
        spanish_rules(),
        spanish_slots(players, dialect, faces),
        SampleOptions(max_quantity=max_quantity, clean_bids=clean_bids),
    )

"""From one recognized utterance to one decision: accept an intent, confirm it, or ignore it.

The same rules serve every backend (Vosk, Whisper) and both the live loop and the
bench. Steps, for each utterance:

1. **Readings.** Each hypothesis is parsed; hypotheses reading as the same intent pool
   their scores, and the reading keeps every phrasing (`Reading.phrasings`): the
   evidence of step 4 looks at the phrasing that fits the audio best (a lone "dudo"
   often scores best as "dudo dudo"). The backend's free transcript
   (`Utterance.free_text`), when it is one of the hypotheses, is the "table talk"
   reading unless it parses as a game intent. Every text is parsed after the
   hesitations it begins with (`evidence.hesitant_start`: Whisper writes "ehm, dudo" as
   "En, dudo."), and when the free transcript began with one and agrees with a reading,
   that reading names the player the transcript names: the "En" that a phrasing "Ana
   dudo" explained was no name. Nor is a name the free transcript does not begin with,
   after its hesitations (`readings.name_unheard`: "Ana 3 dones" for Whisper's "3
   dones"): the call is then the player in turn's.
2. **What the game allows** (`GameView`). A reading that cannot answer now (a bare
   number while a bid is expected, a count or bid above the dice on the table, the call
   just taken back with "me equivoqué") is no candidate: it is dropped and the rest
   scaled back to the same total (its mass is not handed to the talk reading either:
   the recognizer said *something* game-like).
   A free transcript that reads as such an answer is table talk.
3. **Priors.** Likely answers (the minimum raises, one more of the standing face, dudo) get
   `raise_prior` nats over far-fetched ones; a reading the free transcript itself
   spells gets `free_agree` nats (a bid only when a face word is spelled as such: in
   "Dos trenas" the parser guessed the face, `readings.spells_its_face`) and the player
   the free transcript names, or none
   ("Digo seis patos." is no "Diego seis patos"); one it only sounds like gets
   `sound_agree`. A call the
   table refused with "no" to "¿Dijiste …?" at this question (`Refusals`, kept by
   `TableDecider` until the game moves) loses `refused_penalty` nats per "no": it is not
   asked about again unless heard clearly. A prior, never a ban: a "sí" misheard as "no"
   cannot lock the table out of its own call. A bid above what the dice on the table
   plausibly hold (`GameView.ceilings`) loses `implausible_nats` per die over: "trece
   sextos" after "dos sextos" at 15 dice is "tres sextos" misheard. A bid more than
   `illegal_reach` below the least raise of its face (`GameView.far_below_nats`) loses
   `far_below_nats`: a player who misjudges a raise says the same bid again or one less,
   so "una quina" over "cuatro sextos" is a call misheard ("dudo"), while "cuatro sextos"
   again keeps its share and is explained. Asked for the count,
   `count_prior` x the binomial log-odds of each count against the likeliest one
   (`GameView.count_logp`): at 15 dice, "una" sexto is 2.5 nats rarer than five.
4. **Evidence against game speech** (`talk_evidence`): a fluent free transcript that
   parses as no game intent and is far from the chosen phrase both in spelling
   (rapidfuzz) and, unless Whisper is sure of it, in sound (`language.phonetic`: "Tuna"
   or "Hugo" for "dudo" is the call misheard, also after a hesitation: "Bueno, Hugo."),
   or a phrase whose length cannot fit the speech.
   With it, the reading is at most confirmed; ignored when Whisper is sure of its
   words (`sure_talk`) unless they sound like the reading ("Hugo" for "dudo" is asked
   about), or when its length cannot fit
   (`duration_misfit`: 0.1 s of a clatter is no "paso" to ask about). An ignore for
   sure words keeps the reading it passed over when that was sure enough to take
   (`Decision.passed_over`): the loop counts on through it while a count is said aloud
   ("una" | "No", Whisper's "dos"). A name said
   alone also needs a free transcript that sounds like the name (`name_evidence`:
   "Para." is no "Ana"); and where no name can answer (asked for the count), a free
   transcript that is a player's name said alone is evidence against any reading
   (`readings.name_said_alone`: "Ana" is no "una", "Diego" no "Diego deshaz").
   A free transcript that is only hesitation sounds ("E", "En", "Em": the "eh" of "eh
   … cuatro" cut off by a pause) is no call at all, ignored without a question
   (`only_a_hesitation`; never against sí / no).
   Weaker evidence, a free transcript of other words that neither reads as the reading
   nor sounds like it (`doubted_by_words`), only raises the share the reading needs
   (`accept_doubted`): mixed evidence is confirmed. So does the table's history
   (`GameView.wary`): right after the table corrected the referee ("me equivoqué", or
   "no" to "¿Dijiste …?") the next call is usually the same call said again, and a call
   misheard once is often misheard again the same way; a game move read then needs
   `accept_doubted` too, so a misheard repeat costs the table one "no" instead of a wrong
   action and a "me equivoqué", while a clearly heard one is still taken at once. A
   doubted count (either way) needs `accept_doubted_count` (0.9): it decides who loses a
   die, and talk while the dice are shown comes out as other words read as a count.
5. **Thresholds** (chosen on the tuning voices, BENCHMARKS.md): a bid or an answer
   needs `accept` share, a consequential action (dudo, calzo, paso, undo, new game:
   they end a round or rewrite it), a "sí" (it commits what was asked) and the count
   after a challenge (it decides who loses a die) need `accept_consequential`, and are
   confirmed when the free transcript has no word (`wordless_for_consequential`; for a
   count: digits that read as another count, "1" for *tres*, or a letter alone, "E" for
   the "eh" before it). A bid the free transcript spells is confirmed, never taken, when
   the phrase search heard the same number of another face first (`Reading.face_disputed`:
   "Una cena." against the search's *una china*: the two halves of the recognizer
   disagree about the face). A legal reading
   between `confirm` and its threshold is **confirmed** ("¿Dijiste cuatro quinas?")
   instead of ignored. Answering the loop's own "¿Dijiste …?" (`GameView.confirming`),
   a "no" needs only `accept`, whatever the free transcript says (a wrong "no" costs
   the table what the question asked again costs: one line), and a doubted "sí" needs
   `accept_doubted_yes` (two answers to choose from: a share says less). Neither sí nor
   no, but a sure free transcript that spells a call possible now (the player never
   heard the question and said the call again; only sí and no were listened for):
   that call is confirmed in its turn (`Decider.call_in_free_transcript`).
6. **Legality.** An illegal best reading with a legal one within `confirm_margin`
   confirms the legal one (a misheard bid); otherwise the illegal one is accepted so
   the referee explains why (bad input gets a clear answer and changes nothing).

A name said alone is accepted as `{"type": "none", "player": ...}`: it tells the referee
who is speaking but is no game action, and a call that follows it within
`NAME_GAP_S` ("Carla… cuatro trenes", cut in two by the VAD) carries that player
(`Decider`).

**Fragments** (`Decider`): real speakers pause inside a phrase for longer than the
VAD's end-of-speech silence, so "un sexto" can arrive as "un" | "sexto". An utterance
that cannot answer now and whose free transcript is a bare count or a face word alone
(while a bid is expected), or a number cut after its "y" ("cuarenta y" | "siete", in any
context), is *held* (action "hold"); the next utterance, if it starts
within `FRAGMENT_GAP_S`, is decided joined with it (each of its readings prefixed by the
fragment where that still parses; the free transcripts joined). A fragment that gets no
continuation is not dropped silently: the decision is "reask" (the loop asks the table
to repeat), on the next utterance or when the loop's wait for one runs out.

Modules, in the order of the steps (each imports only those before it):
`values` (`Action`, `Reading`, `Decision`), `thresholds` (every number), `view` (what the
game knows: `GameView`), `evidence` (step 4), `readings` (steps 1-3), `decide` (steps
4-6), `fragments` and `decider` (one table, utterance after utterance), `table` (the live
loop: the referee's state → `GameView`, a verdict → `Heard`).
"""

from voice_ref.voice.decision.decide import decide
from voice_ref.voice.decision.decider import Decider, bench_decider
from voice_ref.voice.decision.table import (
    AsksAbout,
    DeciderFn,
    Heard,
    HoldsFragments,
    Refusals,
    TableDecider,
    ask_about,
    game_view,
    heard_record,
    make_decider,
    phrases_now,
)
from voice_ref.voice.decision.thresholds import Thresholds, thresholds_from
from voice_ref.voice.decision.values import Action, Decision, Reading
from voice_ref.voice.decision.view import CONFIRMATION_KINDS, GameView

__all__ = [
    "CONFIRMATION_KINDS",
    "Action",
    "AsksAbout",
    "Decider",
    "DeciderFn",
    "Decision",
    "GameView",
    "Heard",
    "HoldsFragments",
    "Reading",
    "Refusals",
    "TableDecider",
    "Thresholds",
    "ask_about",
    "bench_decider",
    "decide",
    "game_view",
    "heard_record",
    "make_decider",
    "phrases_now",
    "thresholds_from",
]

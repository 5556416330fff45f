"""`voice-ref models adapt`: build `models/whisper-base-table`, Whisper base with its
encoder adapted to game speech, which `asr.whisper_model = "auto"` then loads.

It draws the training clips (`clips`), adapts the encoder (`training`) and writes the
decision thresholds chosen for a model of this recipe into the folder's `decision.toml`
(`asr.select.with_model_decision` reads it). Everything happens in a hidden folder beside
the target, which takes the target's name only when it is complete; an existing target
is never overwritten without `--replace`.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from voice_ref.adaptation.clips import MBROLA, ClipRecipe, installed_mbrola
from voice_ref.config import ADAPTED_WHISPER_MODEL
from voice_ref.language.lexicon import WORD_LIST
from voice_ref.voice.asr.select import DECISION_FILE

if TYPE_CHECKING:
    from voice_ref.simulation.render import NoiseBank

# Chosen with `tools/tune_talk.py --pick-cost` on the tuning rows (DEV tuning voices and
# tuning-real) of the model this recipe built in session 29 (`ft5`; BENCHMARKS.md): an
# adapted encoder scores every game phrase higher, so a transcript must be further from
# the phrase to count as table talk, and surer to be ignored without a question.
RECIPE_THRESHOLDS = {"talk_similarity": 0.65, "sure_talk": -1.2}
TORCH_FIX = ("pip install torch --index-url https://download.pytorch.org/whl/cpu "
             "(the CPU build; then pip install -e '.[adapt]')")
MBROLA_FIX = (f"sudo apt install mbrola {' '.join(f'mbrola-{db}' for db in MBROLA)} (Debian: "
              "enable the contrib and non-free components)")
MINUTES_PER_1000_CLIPS = 1.5  # training, 2 cores (BENCHMARKS.md, session 35: 14.8 min / 10,000)
PEAK_MEMORY_GB = 2.9  # a default run's peak RSS, 2.80-2.86 GB (BENCHMARKS.md, session 35)


def _tell(message: str) -> None:
    print(f"voice-ref models adapt: {message}", file=sys.stderr, flush=True)


def missing_requirement(base: Path, dictionary: Path = WORD_LIST) -> str | None:
    """What this machine lacks for adapting `base`, in plain words (None: nothing)."""
    from voice_ref.voice import whisper_model

    if importlib.util.find_spec("torch") is None:
        return f"PyTorch is not installed. Run: {TORCH_FIX}"
    if importlib.util.find_spec("pyroomacoustics") is None:
        return "pyroomacoustics is not installed. Run: pip install -e '.[adapt]'"
    if shutil.which("espeak-ng") is None:
        return "espeak-ng is not installed. Run: sudo apt install espeak-ng"
    if not dictionary.is_file():
        return f"the Spanish word list {dictionary} is missing. Run: sudo apt install wspanish"
    if not whisper_model.is_installed(base):
        return (f"no Whisper base model in {base}. Run: voice-ref models install whisper-base")
    return None


def physical_memory_gb() -> float | None:
    """This machine's memory (None where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") / 1e9
    except (ValueError, OSError, AttributeError):
        return None


def memory_warning(total_gb: float | None) -> str | None:
    """A plain warning when adapting would not fit in memory with room for the system
    (it is not refused: swap may carry it, slowly)."""
    if total_gb is None or total_gb >= PEAK_MEMORY_GB + 1.0:
        return None
    return (f"adapting needs about {PEAK_MEMORY_GB:.1f} GB of memory and this machine has "
            f"{total_gb:.1f} GB: it may swap for hours or be stopped. The model is the same "
            "on every machine: build it on a bigger one and copy the folder here.")


def write_model_card(folder: Path, recipe: ClipRecipe, noise: str | None, seconds: float) -> None:
    """`decision.toml` (read by the recognizer's factory) and `adaptation.json` (how the
    model was made, for whoever measures it later)."""
    lines = ["# Decision thresholds for this adapted model (voice-ref models adapt).",
             "[thresholds]", *(f"{k} = {v}" for k, v in RECIPE_THRESHOLDS.items())]
    (folder / DECISION_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    record = {"clips": recipe.clips, "seed": recipe.seed, "narrow": recipe.narrow,
              "mbrola": list(recipe.mbrola), "sounds": recipe.sounds, "noise": noise,
              "minutes": round(seconds / 60, 1), "made": time.strftime("%Y-%m-%d %H:%M")}
    (folder / "adaptation.json").write_text(json.dumps(record, indent=1) + "\n",
                                            encoding="utf-8")


def mbrola_note(found: tuple[str, ...]) -> str | None:
    """What to tell when the MBROLA voices found are not all of the measured recipe's."""
    if not found:
        return ("no MBROLA Spanish voices: adapting with espeak-ng voices only (the measured "
                f"recipe also has MBROLA's recorded diphones). To add them: {MBROLA_FIX}")
    missing = [db for db in MBROLA if db not in found]
    if missing:
        return (f"MBROLA voices missing: {', '.join(missing)}; adapting with "
                f"{', '.join(found)} only, so the model will differ from the measured one. "
                f"To add them: {MBROLA_FIX}")
    return None


def main_adapt(args: argparse.Namespace) -> int:
    from voice_ref.config import load_config
    from voice_ref.simulation.render import NoiseBank

    config = load_config(getattr(args, "config", None))
    base = Path(args.base) if args.base else config.whisper_base
    out = Path(args.out) if args.out else config.path(ADAPTED_WHISPER_MODEL)
    problem = missing_requirement(base)
    if problem is None and out.resolve() == base.resolve():
        problem = f"the adapted model cannot replace its base model ({base}); choose --out"
    if problem is None and out.exists() and not args.replace:
        problem = f"{out} already exists; pass --replace to build it again"
    if problem is None and args.clips < 100:
        problem = "--clips must be at least 100"
    noise = None
    if problem is None and args.noise:
        try:
            noise = NoiseBank.load(args.noise)
        except (ValueError, OSError, EOFError) as exc:
            problem = f"cannot use the noise recordings: {exc}"
    if problem is not None:
        _tell(problem)
        return 2
    warning = memory_warning(physical_memory_gb())
    if warning is not None:
        _tell(warning)
    mbrola = () if args.no_mbrola else installed_mbrola()
    if not args.no_mbrola and (note := mbrola_note(mbrola)) is not None:
        _tell(note)
    recipe = ClipRecipe(clips=args.clips, seed=args.seed, mbrola=mbrola)
    began = time.monotonic()
    work = out.parent / f".{out.name}.partial"
    shutil.rmtree(work, ignore_errors=True)
    try:
        build(base, work, recipe, noise, config.asr.threads)
        write_model_card(work / "model", recipe, args.noise, time.monotonic() - began)
        if out.exists():
            shutil.rmtree(out)
        (work / "model").rename(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"Adapted model ready in {out} ({(time.monotonic() - began) / 60:.0f} min).")
    if config.whisper_model.resolve() == out.resolve():
        print('Every table uses it from now on (asr.whisper_model = "auto").')
    else:
        print("To use it, set in config.toml:\n  [asr]\n  whisper_model = "
              f"\"{_relative(out, config.base_dir)}\"\nor pass --model {out} to play / bench.")
    print("The first game computes its text prior (minutes, once), or run: "
          "voice-ref models prepare")
    return 0


def build(base: Path, work: Path, recipe: ClipRecipe, noise: NoiseBank | None,
          threads: int) -> None:
    """Clips into `work/clips`, then the adapted model into `work/model`."""
    from voice_ref.adaptation.clips import build_clips
    from voice_ref.adaptation.training import TrainSettings, train

    _tell(f"1/2: drawing {recipe.clips} training clips (about "
          f"{max(1, round(recipe.clips / 7000))} min)...")
    build_clips(work / "clips", recipe, noise, WORD_LIST, jobs=threads)
    minutes = recipe.clips / 1000 * MINUTES_PER_1000_CLIPS
    _tell(f"2/2: adapting the encoder (about {minutes:.0f}-{2 * minutes:.0f} min on 2 cores)...")
    train(work / "clips", base, work / "model", TrainSettings(threads=threads), progress=_tell)


def _relative(path: Path, base: Path) -> str:
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)

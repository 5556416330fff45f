"""Build **tuning-real**: real human Spanish for choosing decision thresholds.

dev-real (`../shared/audio/dev-real`) is the held-out real voice and must never tune
anything. This set is the tuning counterpart: another real speaker, the Colombian
Spanish Asterisk prompts of Debian's `asterisk-prompt-es-co` (a different woman's
voice, "July E. Jiménez", Avatar Ltda., GPL-2; 8 kHz GSM), built the way dev-real was
(its README):

- `answer_number` clips, intent `{"type": "number", "value": N}`: 0–30, 40, 50, 60 as
  recorded; 31–59 joined from tens + "y" (`vm-and`) + unit with 40–80 ms gaps.
- `chatter` clips, intent `{"type": "none"}`: every other prompt whose Whisper-base
  greedy transcript (es) is reliable (average log-probability ≥ −0.9), contains no
  game word (numbers, faces, sí/no, paso, dudo, calzo, fillers, ...), does not parse
  as a game intent and is no keypad instruction. `text` is that transcript.
- 25% clean, the rest over the DEV set's noise-only clips (doing_the_dishes,
  running_tap, pink_noise; only the tuning split's, even file numbers) at 6/12/18 dB
  SNR on active speech power; speech level −30…−18 dBFS; 250–500 ms of low room tone
  before and after.

Stdlib + numpy + sox. Deterministic (seeded). WAVs go to a folder outside git (default
`build/tuning-real`, gitignored; never commit them).
Needs sox (GSM decoding, resampling) and, for the transcripts, the Whisper model in
`models/whisper-base`; transcripts are cached in `transcripts.json`.

    python tools/make_tuning_real.py [--out build/tuning-real] [--seed 20261130]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np

RATE = 16000
SOURCE = Path("/usr/share/asterisk/sounds/es")
VOICE = "asterisk-es-co"
NOISES = ("doing_the_dishes", "running_tap", "pink_noise")
SNRS = (6, 12, 18)
MIN_LOGPROB = -0.9  # as dev-real: below, Whisper's transcript is unreliable
KEYPAD = re.compile(r"\b(marque|presione|oprima|pulse|digite|tecla|numeral|asterisco)\b")
SKIP_FILES = re.compile(r"^(beep|beeperr)$")
# Numbers and ordinals ("h-13": "décimo tercero") by file name; the rest of digits/
# (days, months, "mañana", ...) is table talk.
NUMBER_FILE = re.compile(r"^(\d+|h-\d+)$")


def game_words() -> frozenset[str]:
    """Every word that could make a prompt game speech (folded, unaccented)."""
    from voice_ref.language.numbers import ZERO_WORDS, number_words
    from voice_ref.language.text import fold
    from voice_ref.language.vocabulary import (
        BID_FILLERS,
        CLEAN_WORDS,
        FACE_WORDS,
        NUMBER_FILLERS,
        NUMERAL_FACES,
    )

    words = set(number_words()) | set(ZERO_WORDS) | set(CLEAN_WORDS)
    for fw in (*FACE_WORDS, *NUMERAL_FACES):
        words |= {fw.singular, fw.plural}
    for filler in (*BID_FILLERS, *NUMBER_FILLERS):
        words |= set(filler.split())
    words |= {
        "si", "no", "paso", "dudo", "calzo", "abierta", "cerrada", "izquierda", "derecha",
        "repite", "repita", "otra", "vez", "deshacer", "equivoque", "corrige", "un", "una",
        "primero", "primera", "quien", "cuantos", "cuantas", "partida", "mentira", "obligo",
    }  # fmt: skip
    return frozenset(fold(w) for w in words)


def load(path: Path) -> np.ndarray:
    """Any sox-readable file → 16 kHz mono float32."""
    raw = subprocess.run(
        ["sox", str(path), "-t", "raw", "-e", "float", "-b", "32", "-c", "1", "-r", str(RATE), "-"],
        check=True,
        capture_output=True,
    ).stdout
    return np.frombuffer(raw, dtype=np.float32).copy()


def write_wav(path: Path, audio: np.ndarray) -> None:
    pcm = np.clip(np.round(audio * 32767), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(pcm.tobytes())


def trim(audio: np.ndarray, floor_db: float = -40.0) -> np.ndarray:
    """Cut leading/trailing silence (20 ms frames below `floor_db` of the loudest frame)."""
    frame = RATE // 50
    n = len(audio) // frame
    if n == 0:
        return audio
    rms = np.sqrt(np.mean(audio[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)
    loud = np.nonzero(20 * np.log10(rms / rms.max()) > floor_db)[0]
    if len(loud) == 0:
        return audio
    return audio[max(0, loud[0] - 1) * frame : min(n, loud[-1] + 2) * frame]


def active_power(audio: np.ndarray) -> float:
    """Mean power of the frames within 30 dB of the loudest (active speech)."""
    frame = RATE // 50
    n = max(1, len(audio) // frame)
    power = np.mean(np.resize(audio, n * frame).reshape(n, frame) ** 2, axis=1) + 1e-12
    return float(np.mean(power[power > power.max() * 1e-3]))


def transcribe(files: list[Path], model_dir: Path, cache: Path) -> dict[str, dict]:
    """Whisper-base greedy transcript (es) and its mean token log-probability per file.
    The audio is encoded as the recognizer encodes an utterance (speech + 0.3 s of
    silence, not a 30 s window: 10x faster, same words on short prompts)."""
    done: dict[str, dict] = json.loads(cache.read_text()) if cache.is_file() else {}
    todo = [f for f in files if str(f) not in done]
    if not todo:
        return done
    import ctranslate2

    from voice_ref.voice.asr.log_mel import encoder_input
    from voice_ref.voice.asr.whisper_backend import load_whisper

    model, tok, n_mels = load_whisper(str(model_dir), 1)
    start = [*tok.sot_sequence, tok.no_timestamps]
    for i, f in enumerate(todo):
        features = encoder_input(trim(load(f)), n_mels)
        encoded = model.encode(ctranslate2.StorageView.from_array(features))
        result = model.generate(
            encoded, [start], beam_size=1, max_length=len(start) + 40, return_scores=True
        )[0]
        ids = [t for t in result.sequences_ids[0] if t < tok.eot]
        text = tok.decode(ids).strip()
        done[str(f)] = {"text": text, "avg_logprob": round(float(result.scores[0]), 3)}
        print(f"{i + 1}/{len(todo)} {f.name}: {text!r} {result.scores[0]:.2f}", file=sys.stderr)
        if i % 20 == 19:
            cache.write_text(json.dumps(done, ensure_ascii=False, indent=0))
    cache.write_text(json.dumps(done, ensure_ascii=False, indent=0))
    return done


def unloop(text: str) -> str:
    """Whisper's repetition loop cut to its first round ("Contra señas Contra señas ...")."""
    words = text.split()
    key = [re.sub(r"[^\w]", "", w.lower()) for w in words]
    for n in range(1, len(words) // 2 + 1):
        if all(key[i] == key[i % n] for i in range(len(words) - 1)):  # the last may be cut
            return " ".join(words[:n]).rstrip(",")
    return text


def chatter_reason(text: str, logprob: float, parser, words: frozenset[str]) -> str:  # noqa: ANN001
    """Why a transcript is left out ("" to use it)."""
    from voice_ref.language.text import fold

    folded = fold(text)
    if not re.search(r"[a-z]", folded):
        return "empty"
    if logprob < MIN_LOGPROB:
        return f"unreliable ({logprob:.2f})"
    if re.search(r"\d", text):
        return "digits"
    if KEYPAD.search(folded):
        return "keypad instruction"
    hit = sorted(set(re.findall(r"[a-z]+", folded)) & words)
    if hit:
        return "game word: " + ", ".join(hit)
    if parser.parse(text).intent is not None:
        return "parses as a game intent"
    return ""


def numbers(rng: np.random.Generator) -> list[tuple[int, list[Path], list[float]]]:
    """(value, source files, gaps) for 0–60."""
    digits = SOURCE / "digits"
    out = []
    for value in range(61):
        single = digits / f"{value}.gsm"
        if single.is_file():
            out.append((value, [single], []))
        else:
            tens, unit = divmod(value, 10)
            files = [digits / f"{tens * 10}.gsm", SOURCE / "vm-and.gsm", digits / f"{unit}.gsm"]
            out.append((value, files, [round(float(rng.uniform(0.04, 0.08)), 3) for _ in range(2)]))
    return out


def noise_bank(dev: Path) -> dict[str, list[np.ndarray]]:
    """The DEV set's noise-only clips of the tuning split (even file numbers), per noise."""
    bank: dict[str, list[np.ndarray]] = {n: [] for n in NOISES}
    labels = dev / "labels.jsonl"
    if not labels.is_file():
        return {}
    for line in labels.read_text(encoding="utf-8").splitlines():
        lb = json.loads(line)
        digits = "".join(ch for ch in Path(lb["file"]).stem if ch.isdigit())
        if lb.get("category") == "noise_only" and lb.get("noise") in bank and int(digits) % 2 == 0:
            bank[lb["noise"]].append(load(dev / lb["file"]))
    return {k: v for k, v in bank.items() if v}


def render(
    speech: np.ndarray, rng: np.random.Generator, noise: np.ndarray | None, snr: int | None
) -> tuple[np.ndarray, float, float, float]:
    """Pad, level and mix one clip: (audio, speech_start, speech_end, level_dbfs)."""
    level = float(rng.uniform(-30, -18))
    speech = speech * (10 ** (level / 20) / np.sqrt(active_power(speech)))
    before, after = (int(rng.uniform(0.25, 0.5) * RATE) for _ in range(2))
    total = before + len(speech) + after
    audio = rng.normal(0, 10 ** (-70 / 20), total).astype(np.float32)  # room tone
    audio[before : before + len(speech)] += speech
    if noise is not None and snr is not None:
        start = int(rng.integers(0, len(noise)))
        bed = np.resize(np.roll(noise, -start), total)
        gain = np.sqrt(active_power(speech) / (np.mean(bed**2) + 1e-12) / 10 ** (snr / 10))
        audio += bed * gain
    peak = float(np.max(np.abs(audio)))
    if peak > 0.99:
        audio *= 0.99 / peak
    return audio, before / RATE, (before + len(speech)) / RATE, level


def build(out: Path, dev: Path, model_dir: Path, seed: int) -> dict:
    from voice_ref.language.parser import Parser

    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    (out / "wav").mkdir(exist_ok=True)
    for old in (out / "wav").glob("tr*.wav"):  # a rebuild leaves no clip of an older one
        old.unlink()
    words = game_words()
    parser = Parser([])
    others = sorted(
        p
        for p in [*SOURCE.glob("*.gsm"), *(SOURCE / "digits").glob("*.gsm")]
        if not SKIP_FILES.match(p.stem) and not NUMBER_FILE.match(p.stem) and p.stem != "vm-and"
    )
    heard = transcribe(others, model_dir, out / "transcripts.json")
    prompts, chatter = [], []
    for p in others:
        t = {**heard[str(p)], "text": unloop(heard[str(p)]["text"])}
        reason = chatter_reason(t["text"], t["avg_logprob"], parser, words)
        prompts.append({"file": str(p.relative_to(SOURCE)), **t, "left_out": reason})
        if not reason:
            chatter.append((p, t["text"]))
    items: list[dict] = [
        {"category": "answer_number", "intent": {"type": "number", "value": v}, "files": f,
         "gaps": g, "text": str(v)}
        for v, f, g in numbers(rng)
    ] + [
        {"category": "chatter", "intent": {"type": "none"}, "files": [p], "gaps": [], "text": text}
        for p, text in chatter
    ]  # fmt: skip
    order = rng.permutation(len(items))
    bank = noise_bank(dev)
    conditions: list[tuple[str | None, int | None]] = [(None, None)]
    if bank:
        conditions += [(n, s) for n in sorted(bank) for s in SNRS]
    labels = []
    for k, i in enumerate(order, start=1):
        item = items[int(i)]
        parts = [trim(load(f)) for f in item["files"]]
        pieces: list[np.ndarray] = []
        for j, part in enumerate(parts):
            pieces.append(part)
            if j < len(item["gaps"]):
                pieces.append(np.zeros(int(item["gaps"][j] * RATE), dtype=np.float32))
        speech = np.concatenate(pieces)
        clean = not bank or rng.random() < 0.25
        pick = None if clean else 1 + int(rng.integers(0, len(conditions) - 1))
        noise_name, snr = (None, None) if pick is None else conditions[pick]
        noise = None
        if noise_name is not None:
            clips = bank[noise_name]
            noise = clips[int(rng.integers(0, len(clips)))]
        audio, start, end, level = render(speech, rng, noise, snr)
        name = f"wav/tr{k:04d}.wav"
        write_wav(out / name, audio)
        n_words = len(item["text"].split())
        talk = item["category"] == "chatter"
        labels.append(
            {
                "file": name,
                "text": item["text"],
                "intent": item["intent"],
                "voice": VOICE,
                "noise": noise_name,
                "snr": snr,
                "source": "real",
                "split": "tuning",
                "category": item["category"],
                "tags": (["concat"] if item["gaps"] else [])
                + (["single_word" if n_words == 1 else "sentence"] if talk else []),
                "duration": round(len(audio) / RATE, 3),
                "speech_start": round(start, 3),
                "speech_end": round(end, 3),
                "level_dbfs": round(level, 2),
                "origin": [str(f.relative_to(SOURCE)) for f in item["files"]],
                **({"gap_s": item["gaps"]} if item["gaps"] else {}),
            }
        )
    with (out / "labels.jsonl").open("w", encoding="utf-8") as f:
        for lb in labels:
            print(json.dumps(lb, ensure_ascii=False), file=f)
    with (out / "prompts.jsonl").open("w", encoding="utf-8") as f:
        for p in prompts:
            print(json.dumps(p, ensure_ascii=False), file=f)
    stats = {
        "clips": len(labels),
        "by_category": {
            c: sum(lb["category"] == c for lb in labels) for c in ("answer_number", "chatter")
        },
        "clean": sum(lb["noise"] is None for lb in labels),
        "single_word_chatter": sum("single_word" in lb["tags"] for lb in labels),
        "prompts_left_out": sum(bool(p["left_out"]) for p in prompts),
        "seed": seed,
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=1))
    return stats


def main(argv: list[str] | None = None) -> int:
    root = Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=root / "build" / "tuning-real")
    ap.add_argument("--dev", type=Path, default=root.parent / "shared" / "audio" / "dev",
                    help="the DEV set (its tuning noise-only clips are the noises)")  # fmt: skip
    ap.add_argument("--model", type=Path, default=root / "models" / "whisper-base")
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args(argv)
    if not SOURCE.is_dir():
        print(f"{SOURCE} missing: apt-get install asterisk-prompt-es-co", file=sys.stderr)
        return 2
    print(json.dumps(build(args.out, args.dev, args.model, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

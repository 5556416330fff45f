"""Push-to-talk for very noisy tables: audio counts only for a while after a key press."""

from __future__ import annotations

import sys
import threading
import time


class PushToTalk:
    """Audio counts only for `window_s` after the key is pressed.

    Needs a terminal (the key is read from it); a terminal cannot see a key being held, so a
    press opens the microphone for one utterance. Configure with `[audio] push_to_talk =
    "space"` (or any single character, or "enter").
    """

    KEYS = {"space": " ", "enter": "\n", "return": "\n"}

    def __init__(self, key: str, window_s: float = 6.0) -> None:
        self.key = self.KEYS.get(key.lower(), key[:1])
        self.window_s = window_s
        self._opened_at = float("inf")
        self._open_until = float("-inf")

    def press(self, now: float | None = None) -> None:
        self._opened_at = time.monotonic() if now is None else now
        self._open_until = self._opened_at + self.window_s

    def is_open(self, t: float) -> bool:
        return self._opened_at <= t <= self._open_until

    def listen_to_terminal(self) -> None:
        """Read key presses from the terminal on a daemon thread."""
        import termios
        import tty

        fd = sys.stdin.fileno()
        old = termios.tcgetattr(fd)

        def loop() -> None:
            try:
                tty.setcbreak(fd)
                while True:
                    ch = sys.stdin.read(1)
                    if not ch:
                        return
                    if ch == self.key or (self.key == "\n" and ch == "\r"):
                        self.press()
            finally:
                termios.tcsetattr(fd, termios.TCSADRAIN, old)

        threading.Thread(target=loop, name="push-to-talk", daemon=True).start()

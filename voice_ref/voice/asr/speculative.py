"""Speculative end-pointing: recognize at a tentative end, answer at the final end.

The VAD (`StreamingVad` with `tail_s`) reports a tentative end after a short silence and
the final end `end_silence_s` after the speech, with the very same audio unless speech
resumed in between. Recognizing the tentative audio at once moves the recognizer's
compute into that wait. The kept result answers the final end only for exactly the
same audio (`Segment.same_audio`), and is dropped when the recognizer changes (`drop`:
a reset, another context). A tentative end that speech overtakes costs one
recognition for nothing; a real-time loop pays it (`listen.stream` charges it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from voice_ref.voice.asr.base import Utterance
from voice_ref.voice.asr.vad import Segment


class SpeculativeSegments:
    """Turns VAD segments into utterances with `recognize`, reusing a tentative result.

    Every utterance's `extra` says whether its result was computed early (`early`) and
    how many tentative recognitions its speech caused (`tentative_runs`; the ones not
    used were wasted)."""

    def __init__(self, recognize: Callable[[Segment], Utterance]) -> None:
        self._recognize = recognize
        self._kept: tuple[Segment, Utterance] | None = None
        self._runs = 0  # tentative recognitions since the last final segment

    def __call__(self, segments: Iterable[Segment]) -> list[Utterance]:
        out = []
        for seg in segments:
            if not seg.final:
                self._kept = (seg, self._recognize(seg))
                self._runs += 1
                continue
            kept, self._kept = self._kept, None
            early = kept is not None and kept[0].same_audio(seg)
            utt = kept[1] if kept is not None and early else self._recognize(seg)
            extra = {**utt.extra, "early": early, "tentative_runs": self._runs}
            out.append(replace(utt, extra=extra))
            self._runs = 0
        return out

    def drop(self) -> None:
        """Forget the kept result: it was recognized under a context now gone."""
        self._kept = None

    def reset(self) -> None:
        """Forget the kept result and the count of tentative runs: the audio is gone."""
        self._kept, self._runs = None, 0

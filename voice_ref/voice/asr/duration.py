"""Does a phrase fit the speech the VAD measured? A log-normal duration model.

Used by the Whisper search (a name alone cannot explain 1.3 s of speech) and by the
decision layer for every backend (evidence that audio is not the chosen phrase).
"""

from __future__ import annotations

import numpy as np

SYLLABLES_PER_S = 5.5
ONSET_S = 0.15  # VAD hangover and word onset: a lone "sí" still lasts ~0.3 s
DURATION_SIGMA = 0.35


def duration_logp(n_syllables: int, speech_s: float) -> float:
    """Log-normal duration model: does a phrase of n syllables fit `speech_s` of speech?

    Whisper's decoder barely notices audio left unexplained ("Camila" for "Camila,
    ocho tontos"). Speaking rate: 140-185 words/min x ~2 syllables/word = 4.7-6.2
    syllables/s (`SYLLABLES_PER_S`), plus `ONSET_S`; `DURATION_SIGMA` allows about
    ±40% around it.
    The free transcript (n = 0) is not judged.
    """
    if n_syllables <= 0 or speech_s <= 0:
        return 0.0
    ratio = speech_s / (ONSET_S + n_syllables / SYLLABLES_PER_S)
    return -(np.log(ratio) ** 2) / (2 * DURATION_SIGMA**2)

"""The Spanish words of the table screen (`voice/display.py`), kept with the vocabulary."""

from __future__ import annotations

from voice_ref.language.vocabulary import clean_word, dialect_faces

# Face names shown on screen: the Chilean names, one word per face.
FACE_LABELS: dict[int, str] = {face: fw.singular for face, fw in dialect_faces("chile").items()}
ROUND_LABELS: dict[str, str] = {
    "normal": "ronda normal",
    "obligar": "ronda obligada",
    "palo_fijo": "palo fijo",
}
# What the referee waits for (the protocol's `awaiting`), as the screen says it.
WAITING_LABELS: dict[str, str] = {
    "starter": "quién parte",
    "direction": "la dirección",
    "bid": "un canto, dudo, calzo o paso",
    "count": "cuántos dados hay",
    "pass_check": "si el paso era válido",
    "obligar": "si obliga",
    "modality": "abierta o cerrada",
    "game_over": "nueva partida",
}


def clean_label(face: int) -> str:
    """ "limpio" / "limpia" agreeing with the face's screen name (singular, one label)."""
    faces = dialect_faces("chile")
    return clean_word(faces[face], 1, True) if face in faces else "limpio"

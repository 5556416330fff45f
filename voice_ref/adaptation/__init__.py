"""`voice-ref models adapt`: teach the Whisper model's encoder the game's speech.

`clips` draws the training clips (synthetic voices, rooms, noise), `training` adapts the
encoder in PyTorch and writes an adapted copy of the model, `command` wires both into the
command and leaves the model folder ready to use (with its `decision.toml`). Why and how
well: BENCHMARKS.md, sessions 28-30.
"""

"""voice_ref: an offline, hands-free referee for Dudo / Cacho.

Layers, each depending only on the ones before it:
rules (pure game logic) <- language (Spanish text <-> intents) <- dialogue (referee)
<- voice (audio in, recognition, announcer) <- cli.
"""

__version__ = "0.1.0"

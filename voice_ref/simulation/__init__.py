"""A simulated table: whole spoken games as the measure of the referee (`voice-ref bench --games`).

One job per module: `script` plays a legal intended game with real dice, `phrasing` words each
action as tables do, `render` turns words into a player's voice in the room's noise,
`announcer` stands in for the loudspeaker in simulated time, `players` reacts to what the
referee says, `runner` feeds it all through the live `VoiceSession`, `summary` scores it.
"""

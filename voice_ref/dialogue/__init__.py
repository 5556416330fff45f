"""The referee's dialogue: intent + game -> what it says and does; prompts, protocol, game log."""

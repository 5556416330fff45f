"""The voice layer: audio in, speech recognition, spoken announcements, the live loop."""

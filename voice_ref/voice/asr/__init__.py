"""Speech recognizer backends behind one small interface (see base.py)."""

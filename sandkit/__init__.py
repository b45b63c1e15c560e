"""sandkit: describe an AI coding agent's sandbox once, compile it everywhere, lint what breaks it."""

__version__ = "0.1.0"

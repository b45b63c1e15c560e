"""Parsers that keep positions: every value a rule sees can say where it came from."""

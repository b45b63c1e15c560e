"""Reviewing kits: ``sandkit summary`` (one kit's policy on a page) and ``sandkit diff`` (what a
change does to the sandbox between two git revisions, with a risk level per change).

Both read kits through the loader only; neither imports jinja2 or renders a target. ``summary``
asks the targets for their fidelity rows; ``diff`` never does.
"""

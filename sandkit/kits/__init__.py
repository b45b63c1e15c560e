"""Kits: the model, the located YAML loader, ``extends`` and the bundled presets."""

"""What files say, read once per file and shared by rules: containers, MCP servers, workflows,
host paths, secret values, networks and agent command lines.

Rule modules (``sandkit/lint/rules/``) import from here and never from each other; a fact two
families need lives here. Modules here never import a rule module.
"""

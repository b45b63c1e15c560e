"""The policy linter: finds what lets an unattended agent reach beyond its sandbox."""

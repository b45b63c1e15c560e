"""Allow ``python -m sandkit``."""

import sys

from sandkit.cli import entry

sys.exit(entry())

"""Allow ``python -m sandkit``."""

import sys

from sandkit.cli import main

sys.exit(main())

"""``python -m lupikit.cli``: the ``lupikit`` command."""

import sys

from . import main

sys.exit(main())

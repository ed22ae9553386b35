"""``python -m cli``: the same as the ``memlens`` command."""

import sys

from cli.main import main

sys.exit(main())

"""``python -m mcp_server --root DIR [--http [HOST:]PORT]``: ``memlens mcp`` from a checkout."""

import sys

from mcp_server.server import main

sys.exit(main())

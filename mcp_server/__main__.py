"""``python -m mcp_server --root DIR``: serve memlens to MCP clients over stdio."""

import sys

from mcp_server.server import main

sys.exit(main())

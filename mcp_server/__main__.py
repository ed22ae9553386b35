"""``python -m mcp_server --root DIR [--http [HOST:]PORT]``: ``memlens mcp`` from a checkout.

The one command line (cli/main.py) runs it; nothing imports this module, so the command line
importing the server makes no circle."""

import sys

from cli.main import main

sys.exit(main(["mcp", *sys.argv[1:]]))

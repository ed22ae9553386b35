"""``python -m mcp_server --root DIR [--http [HOST:]PORT]``: ``memlens mcp`` from a checkout,
run by the installed command (engine/command_line.py), so the server never imports the
command line that imports it."""

import sys

from engine.command_line import run

sys.exit(run(["mcp", *sys.argv[1:]]))

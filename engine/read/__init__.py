"""Reads the facade serves besides search: conversations, and reads by time and person."""

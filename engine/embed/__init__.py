"""Embedding providers behind one interface, their guard, and the API keys they read."""

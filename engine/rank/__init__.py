"""Turning two arms into one order: fusion, calibration per embedder, decay, diversity, reranking."""

"""The vector arm: the sidecar (its search structure, derived from the rows), sign codes,
compiled kernels, message vectors."""

"""The vector arm's storage and scans: vec0, the sidecar, sign codes, compiled kernels, message vectors."""

"""memlens screens."""

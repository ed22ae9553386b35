"""The OpenAI API key: read from ``$OPENAI_API_KEY`` or ``<root>/secrets/openai.json``, checked
for form, registered for scrubbing (engine/embed/redact.py) and held so that it never prints.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.embed.redact import key_form_problem, register_secret

SECRETS_RELATIVE_PATH = Path("secrets") / "openai.json"


class Secret:
    """Holds the API key; prints as ``***`` so ``vars()``/debuggers never show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "***"

    __str__ = __repr__


def unusable(key: str, source: str) -> str | None:
    """Why the key read from ``source`` cannot be sent (naming the source, never the key)."""
    register_secret(key)
    problem = key_form_problem(key)
    if problem is None:
        return None
    where = "$OPENAI_API_KEY" if source == "env" else source
    return f"the API key in {where} is unusable: {problem} (a key is one line of printable ASCII)"


def _checked(key: str, source: str) -> tuple[str | None, str | None, str | None]:
    problem = unusable(key, source)
    return (key, source, None) if problem is None else (None, source, problem)


def read_api_key(root: Path | None) -> tuple[str | None, str | None, str | None]:
    """``(key, source, problem)``: the key from ``$OPENAI_API_KEY`` or ``<root>/secrets/openai.json``.

    ``source`` is ``"env"`` or the secrets file path; ``problem`` says (without the key) why a
    present secrets file gave no key, or why a key is unusable (then ``key`` is None and
    ``source`` says where it was). Never raises.
    """
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    if key:
        return _checked(key, "env")
    if root is None:
        return None, None, None
    path = Path(root) / SECRETS_RELATIVE_PATH
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None, None
    except OSError as exc:
        return None, None, f"{path} could not be read ({type(exc).__name__})"
    try:
        data = json.loads(text)
    except ValueError:
        # the decoder's message may quote the file; say only where it broke
        return None, None, f"{path} is not valid JSON"
    if isinstance(data, dict):
        for name in ("api_key", "OPENAI_API_KEY"):
            value = data.get(name)
            if isinstance(value, str) and value.strip():
                return _checked(value.strip(), str(path))
    return None, None, f"{path} has no \"api_key\" string"

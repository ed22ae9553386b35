"""A conversation's rows: time, sender and text of each message; the query's hits marked."""

from __future__ import annotations

from textual.content import Content
from textual.widgets.option_list import Option

from .text import one_line, plain

SENDER_WIDTH = 18


def message_option(message, sender_width: int) -> Option:
    """One message; its option id is its position in the file (line or entry number)."""
    text = Content.styled(plain(message.text), "bold" if message.hit else "",
                          strip_control_codes=False)
    if message.kind == "heading":
        return Option(Content.assemble(("  ", ""), (plain(one_line(message.text)),
                                                    "bold underline")), id=f"m{message.position}")
    sender = plain(one_line(message.sender))[:sender_width]
    return Option(Content.assemble(
        ("▌ " if message.hit else "  ", "bold $accent"),
        (f"{message.time or '':16} ", "dim"),
        (f"{sender:<{sender_width}} ", "bold $text-primary" if message.hit else "$text-secondary"),
        text), id=f"m{message.position}")


def message_options(messages) -> list[Option]:
    width = min(SENDER_WIDTH, max((len(one_line(m.sender)) for m in messages), default=0))
    return [message_option(m, width) for m in messages]

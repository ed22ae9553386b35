"""The importer base class: one subclass per kind of export (``Importer.parse``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._source import SourceTree
from ._util import ImportFailed, decode_text, looks_binary, parse_json
from .context import ImportContext


class Importer:
    """One per kind: ``parse`` reads ``ctx.source`` and registers targets on ``ctx``.

    Raise :class:`ImportFailed` when the source is not this kind of export at all; report
    everything else through ``ctx.problem`` and keep going.
    """

    kind: str = ""
    description: str = ""

    def parse(self, ctx: ImportContext) -> None:
        raise NotImplementedError

    @staticmethod
    def text_of(ctx: ImportContext, tree: SourceTree, label: str, data: bytes,
                what: str) -> str | None:
        """One export file as text. A binary file fails an import of that lone file; in a folder
        or zip it is reported and skipped (None). Text that is not UTF-8 is read as cp1252 or
        Latin-1 and reported (``decode_text``)."""
        if looks_binary(data):
            if tree.mode == "file":
                raise ImportFailed(f"{label}: a binary file, not {what}")
            ctx.problem(label, None, f"binary file, not {what}; skipped")
            return None
        text, how = decode_text(data)
        if how:
            ctx.problem(label, None, how)
        return text

    @staticmethod
    def json_files(ctx: ImportContext, tree: SourceTree, nothing: str,
                   progress: bool = True) -> Iterator[tuple[str, str, str, Any]]:
        """(name, label, text, document) for each .json file of the export.

        A lone file that is not JSON fails the import; in a folder or zip it is reported and
        skipped. ``nothing`` is the ImportFailed message when there is no .json file at all.
        """
        names = [n for n in tree.names if n.lower().endswith(".json")] \
            if tree.mode != "file" else tree.names
        if not names:
            raise ImportFailed(f"{ctx.source}: {nothing}")
        for i, name in enumerate(names):
            if progress:
                ctx.progress(i, len(names))
            label = tree.label(name)
            data = tree.read(name)
            if data is None:
                continue
            text, _ = decode_text(data)
            try:
                doc = parse_json(text)
            except ValueError as exc:
                if tree.mode == "file":
                    raise ImportFailed(f"{label}: not JSON ({exc})") from exc
                ctx.problem(label, getattr(exc, "lineno", None),
                            f"invalid JSON ({exc}); skipped")
                continue
            yield name, label, text, doc
        if progress:
            ctx.progress(len(names), len(names))

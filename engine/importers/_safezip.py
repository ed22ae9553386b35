"""Reading zip entries without trusting them: size and ratio caps, streamed, and entry names
that would land outside the export refused (docs/importers.md, "Hostile archives").

Every importer reads zip members through :class:`ZipBudget` (via ``SourceTree``), so a zip
bomb is refused by the same rule everywhere: the declared sizes are checked first, then the
entry is inflated in chunks with a running counter that stops at the cap, whatever the
headers claimed.
"""

from __future__ import annotations

import re
import stat
import zipfile
import zlib

from engine.display import human_bytes

#: one entry may inflate to at most this many bytes
MAX_ENTRY_BYTES = 1 << 30
#: all entries read from one archive together
MAX_TOTAL_BYTES = 2 << 30
#: an entry larger than RATIO_MIN_BYTES may not inflate more than MAX_RATIO times its
#: compressed size (real text and JSON compress 3-30:1; a bomb of zeros ~1000:1)
MAX_RATIO = 200
RATIO_MIN_BYTES = 8 << 20
CHUNK = 1 << 20

_DRIVE = re.compile(r"^[A-Za-z]:")


class Refused(Exception):
    """A file of the export that is not read (a zip entry over a cap, a link out)."""


def entry_rel(name: str) -> str | None:
    """The entry's POSIX path inside the export, or None when it would land outside it:
    ``..`` parts, an absolute path, a drive letter or a UNC name."""
    posix = name.replace("\\", "/")
    if posix.startswith("/") or _DRIVE.match(posix):
        return None
    parts = [p for p in posix.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def unsafe_entry(name: str) -> str:
    """The problem line for an entry :func:`entry_rel` refused (the name escaped)."""
    return (f"entry {name!r} would land outside the export (a '..', absolute or drive "
            "path); skipped")


def is_link(info: zipfile.ZipInfo) -> bool:
    """A symbolic link stored as an entry (Unix mode in the high bits of its external
    attributes): its bytes are the link's target path, not a file of the export."""
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)


def link_entry(name: str) -> str:
    """The problem line for an entry :func:`is_link` refused (the name escaped)."""
    return f"entry {name!r} is a symbolic link, not a file of the export; skipped"


class ZipBudget:
    """The decompressed bytes one archive may still yield, shared by all its entries."""

    def __init__(self) -> None:
        self.used = 0

    def _check(self, produced: int, compressed: int) -> None:
        if produced > MAX_ENTRY_BYTES:
            raise Refused(f"inflates to more than {human_bytes(MAX_ENTRY_BYTES)} (the per-entry "
                             "cap); not read")
        if produced > RATIO_MIN_BYTES and produced > MAX_RATIO * max(compressed, 1):
            raise Refused(f"inflates more than {MAX_RATIO}:1 (a zip bomb?); not read")
        if self.used + produced > MAX_TOTAL_BYTES:
            raise Refused(f"the archive inflates to more than {human_bytes(MAX_TOTAL_BYTES)} in "
                             "total (the per-archive cap); not read")

    def read(self, zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
        """The entry's bytes; :class:`Refused` before (declared sizes) or while reading."""
        self._check(info.file_size, info.compress_size)
        out = bytearray()
        with zf.open(info) as fh:
            while chunk := fh.read(CHUNK):
                out += chunk
                self._check(len(out), info.compress_size)
        self.used += len(out)
        return bytes(out)

    def inflate(self, data: bytes, start: int, limit: int) -> tuple[bytes | None, int]:
        """Raw-deflate ``data[start:limit]`` with the caps: (body or None when the stream is
        incomplete, end offset of the compressed data)."""
        d = zlib.decompressobj(-15)
        out = bytearray()
        given = memoryview(data)[start:limit]  # a lying size header cannot reach past the data
        pending = given
        while not d.eof:
            got = d.decompress(pending, CHUNK)
            pending = d.unconsumed_tail
            out += got
            self._check(len(out), len(given) - len(pending))
            if not got and not pending:
                break
        if not d.eof:
            return None, start + len(given)
        self.used += len(out)
        return bytes(out), start + len(given) - len(d.unused_data)

"""An export's files, whether the export is a folder, a zip (even a truncated one) or one file.

A zip whose central directory is missing (a truncated download) is salvaged by walking its
local file headers: every complete entry is read, each incomplete one is reported.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ._util import ImportFailed, safe_relpath

ProblemFn = Callable[[str, int | None, str], None]

_IGNORED_PARTS = ("__MACOSX", ".DS_Store", "Thumbs.db")
_LOCAL_HEADER = b"PK\x03\x04"


class SourceTree:
    """Read-only view of an export: sorted POSIX ``names`` and ``read(name)``."""

    def __init__(self, path: Path, problem: ProblemFn, *, allow_file: bool = True) -> None:
        self.path = Path(path)
        self.problem = problem
        self._zip: zipfile.ZipFile | None = None
        self._salvaged: dict[str, bytes] | None = None
        self._dates: dict[str, datetime] = {}
        if not self.path.exists():
            raise ImportFailed(f"{self.path}: no such file or folder")
        if self.path.is_dir():
            self.mode = "dir"
            names = []
            for p in self.path.rglob("*"):
                rel = p.relative_to(self.path).as_posix()
                if p.is_file() and not _ignored(rel):
                    names.append(rel)
            self.names = sorted(names)
        elif zipfile.is_zipfile(self.path) or _starts_like_zip(self.path):
            self.mode = "zip"
            self.names = self._open_zip()
        elif allow_file:
            self.mode = "file"
            self.names = [self.path.name]
        else:
            raise ImportFailed(f"{self.path}: expected a folder or a .zip export")

    # -- zip --------------------------------------------------------------------------------

    def _open_zip(self) -> list[str]:
        try:
            zf = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as exc:
            data = self.path.read_bytes()
            self._salvaged = salvage_zip(data, lambda line, msg: self.problem(
                self.path.name, line, msg))
            if not self._salvaged:
                raise ImportFailed(f"{self.path.name}: not a readable zip ({exc}) and no "
                                   "complete entry could be recovered") from exc
            self.problem(self.path.name, None,
                         f"damaged zip ({exc}); recovered {len(self._salvaged)} complete "
                         "entries from the local headers")
            return sorted(n for n in self._salvaged if not _ignored(n))
        self._zip = zf
        names = []
        for info in zf.infolist():
            rel = safe_relpath(info.filename)
            if info.is_dir() or rel is None or _ignored(rel):
                continue
            names.append(rel)
            try:
                self._dates[rel] = datetime(*info.date_time)
            except ValueError:
                pass
        self._zip_names = {safe_relpath(i.filename): i.filename for i in zf.infolist()}
        return sorted(names)

    # -- access -----------------------------------------------------------------------------

    def read(self, name: str) -> bytes | None:
        """The file's bytes, or None (reported) when it cannot be read."""
        try:
            if self.mode == "dir":
                return (self.path / name).read_bytes()
            if self.mode == "file":
                return self.path.read_bytes()
            if self._salvaged is not None:
                return self._salvaged[name]
            assert self._zip is not None
            return self._zip.read(self._zip_names[name])
        except (OSError, zipfile.BadZipFile, zlib.error, KeyError, EOFError) as exc:
            self.problem(self.label(name), None, f"cannot read: {exc}")
            return None

    def label(self, name: str) -> str:
        """How problems name a file: relative to the export (zip members as zip:member)."""
        if self.mode == "file":
            return self.path.name
        if self.mode == "zip":
            return f"{self.path.name}:{name}"
        return name

    def modified(self, name: str, tz) -> datetime | None:
        """The file's modification time in ``tz`` (zip: the entry's stored time)."""
        if self.mode == "zip":
            dt = self._dates.get(name)
            return dt.replace(tzinfo=tz) if dt else None
        target = self.path if self.mode == "file" else self.path / name
        try:
            return datetime.fromtimestamp(target.stat().st_mtime, tz).replace(microsecond=0)
        except (OSError, OverflowError, ValueError):
            return None

    @property
    def display_name(self) -> str:
        """The export's own name (folder name, zip stem, file stem)."""
        if self.mode == "dir":
            return self.path.resolve().name
        return self.path.stem


def _ignored(rel: str) -> bool:
    return any(part in _IGNORED_PARTS for part in rel.split("/"))


def _starts_like_zip(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) == _LOCAL_HEADER
    except OSError:
        return False


def salvage_zip(data: bytes, report: Callable[[int | None, str], None]) -> dict[str, bytes]:
    """Entries recoverable from the local file headers of a zip without a central directory."""
    out: dict[str, bytes] = {}
    pos = data.find(_LOCAL_HEADER)
    while pos >= 0:
        if pos + 30 > len(data):
            report(None, "zip cut off inside an entry header")
            break
        (_, _, flags, method, _, _, crc, csize, _, nlen, xlen) = struct.unpack(
            "<IHHHHHIIIHH", data[pos:pos + 30])
        name_bytes = data[pos + 30:pos + 30 + nlen]
        name = name_bytes.decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
        start = pos + 30 + nlen + xlen
        nxt = data.find(_LOCAL_HEADER, start)
        rel = safe_relpath(name)
        if rel is None or name.endswith("/"):
            pos = nxt
            continue
        body: bytes | None = None
        end = start
        try:
            if method == 8:
                d = zlib.decompressobj(-15)
                limit = len(data) if (flags & 0x08 or csize == 0) else start + csize
                body = d.decompress(data[start:limit])
                if not d.eof:
                    body = None
                else:
                    end = limit - len(d.unused_data)
            elif method == 0 and not flags & 0x08:
                if start + csize <= len(data):
                    body = data[start:start + csize]
                    end = start + csize
            else:
                report(None, f"{rel}: unsupported zip storage (method {method}); skipped")
                pos = nxt
                continue
        except zlib.error:
            body = None
        if body is None:
            report(None, f"{rel}: entry is truncated or corrupt; skipped")
        elif not flags & 0x08 and crc and zlib.crc32(body) != crc:
            report(None, f"{rel}: CRC mismatch (corrupt entry); skipped")
        else:
            out[rel] = body
        pos = data.find(_LOCAL_HEADER, max(end, start))
    return out

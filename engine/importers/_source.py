"""An export's files, whether the export is a folder, a zip (even a truncated one) or one file.

A zip whose central directory is missing (a truncated download) is salvaged by walking its
local file headers: every complete entry is read, each incomplete one is reported. Zip entries
are read under the caps of ``_safezip``; a folder is walked without following links out of it,
and the data root's secrets, config and index are never read (docs/importers.md).
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from engine.config import CONFIG_FILENAME, DB_RELATIVE_PATH

from ._safezip import Refused, ZipBudget, entry_rel, is_link, link_entry, unsafe_entry
from ._util import ImportFailed

ProblemFn = Callable[[str, int | None, str], None]

_IGNORED_PARTS = ("__MACOSX", ".DS_Store", "Thumbs.db")
_LOCAL_HEADER = b"PK\x03\x04"


class SourceTree:
    """Read-only view of an export: sorted POSIX ``names`` and ``read(name)``."""

    def __init__(self, path: Path, problem: ProblemFn, *, allow_file: bool = True,
                 root: Path | None = None) -> None:
        self.path = Path(path)
        self.problem = problem
        self._zip: zipfile.ZipFile | None = None
        self._zip_names: dict[str, zipfile.ZipInfo] = {}
        self._budget = ZipBudget()
        self._salvaged: dict[str, bytes] | None = None
        self._dates: dict[str, datetime] = {}
        self._root = Path(os.path.realpath(root)) if root is not None else None
        self._private = _private_paths(self._root)
        if not self.path.exists():
            raise ImportFailed(f"{self.path}: no such file or folder")
        real = Path(os.path.realpath(self.path))
        if any(real == p or p in real.parents for p in self._private):
            raise ImportFailed(f"{self.path}: the data root's secrets, config and index are "
                               "never imported")
        if self.path.is_dir():
            self.mode = "dir"
            self._real = real
            self.names = self._walk()
        elif not self.path.is_file():  # a FIFO or a device would block or never end
            raise ImportFailed(f"{self.path}: not a regular file or folder")
        elif zipfile.is_zipfile(self.path) or _starts_like_zip(self.path):
            self.mode = "zip"
            self.names = self._open_zip()
        elif allow_file:
            self.mode = "file"
            self.names = [self.path.name]
        elif self.path.suffix.lower() == ".zip":
            raise ImportFailed(f"{self.path}: not a zip archive (damaged, or another kind of "
                               "file with a .zip name); expected a folder or a .zip export")
        else:
            raise ImportFailed(f"{self.path}: expected a folder or a .zip export")

    # -- folder -----------------------------------------------------------------------------

    def _walk(self) -> list[str]:
        """Regular files under the folder; links are followed only to inside it, and a data
        root kept inside the folder is not walked (never re-import what was imported)."""
        names = []
        for top, dirs, files in os.walk(self.path, onerror=self._walk_error):
            base = Path(top)
            for d in list(dirs):
                if (base / d).is_symlink() or Path(os.path.realpath(base / d)) == self._root:
                    dirs.remove(d)  # a link inside to inside: its files are listed anyway
                    rel = (base / d).relative_to(self.path).as_posix()
                    if self._refused(base / d) and not _ignored(rel):
                        self.problem(rel, None, "link to a folder outside the export; "
                                     "not followed")
            for f in files:
                rel = (base / f).relative_to(self.path).as_posix()
                if _ignored(rel):
                    continue
                why = self._refused(base / f)
                if why:
                    self.problem(rel, None, why)
                elif (base / f).is_file():
                    names.append(rel)
        return sorted(names)

    def _walk_error(self, exc: OSError) -> None:
        where = Path(exc.filename or self.path)
        try:
            rel = where.relative_to(self.path).as_posix() or where.name
        except ValueError:
            rel = where.name
        self.problem(rel, None, f"cannot list: {exc.strerror or exc}")

    def _refused(self, path: Path) -> str | None:
        """Why a file of the folder is not read: its real path is outside the export, or it
        is (a link to) one of the data root's private files."""
        real = Path(os.path.realpath(path))
        if any(real == p or p in real.parents for p in self._private):
            return "the data root's secrets, config or index; never read"
        if real != self._real and self._real not in real.parents:
            return "link to a file outside the export; not read"
        return None

    # -- zip --------------------------------------------------------------------------------

    def _open_zip(self) -> list[str]:
        try:
            zf = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as exc:
            data = self.path.read_bytes()
            self._salvaged = salvage_zip(data, lambda line, msg: self.problem(
                self.path.name, line, msg), self._budget)
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
            rel = entry_rel(info.filename)
            if rel is None:
                self.problem(self.path.name, None, unsafe_entry(info.filename))
                continue
            if is_link(info):
                self.problem(self.path.name, None, link_entry(info.filename))
                continue
            if info.is_dir() or _ignored(rel) or rel in self._zip_names:
                continue
            names.append(rel)
            self._zip_names[rel] = info
            try:
                self._dates[rel] = datetime(*info.date_time)
            except ValueError:
                pass
        return sorted(names)

    # -- access -----------------------------------------------------------------------------

    def read(self, name: str, *, required: bool = False) -> bytes | None:
        """The file's bytes, or None (reported) when it cannot be read; ``required`` raises
        :class:`ImportFailed` with the reason instead."""
        try:
            if self.mode == "dir":
                why = self._refused(self.path / name)  # a link swapped in after the walk
                if why:
                    raise Refused(why)
                return (self.path / name).read_bytes()
            if self.mode == "file":
                return self.path.read_bytes()
            if self._salvaged is not None:
                return self._salvaged[name]
            assert self._zip is not None
            return self._budget.read(self._zip, self._zip_names[name])
        except Refused as exc:
            message = str(exc)
        except (OSError, zipfile.BadZipFile, zlib.error, KeyError, EOFError) as exc:
            message = f"cannot read: {exc}"
        if required:
            raise ImportFailed(f"{self.label(name)}: {message}")
        self.problem(self.label(name), None, message)
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


def _private_paths(real_root: Path | None) -> list[Path]:
    if real_root is None:
        return []
    return [real_root / "secrets", real_root / CONFIG_FILENAME,
            (real_root / DB_RELATIVE_PATH).parent]


def salvage_zip(data: bytes, report: Callable[[int | None, str], None],
                budget: ZipBudget | None = None) -> dict[str, bytes]:
    """Entries recoverable from the local file headers of a zip without a central directory."""
    budget = budget or ZipBudget()
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
        rel = entry_rel(name)
        if rel is None:
            report(None, unsafe_entry(name))
        if rel is None or name.endswith("/"):
            pos = nxt
            continue
        body: bytes | None = None
        end = start
        try:
            if method == 8:
                limit = len(data) if (flags & 0x08 or csize == 0) else start + csize
                body, stop = budget.inflate(data, start, limit)
                end = stop if body is not None else start
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
        except Refused as exc:
            report(None, f"{rel}: {exc}")
            pos = nxt
            continue
        if body is None:
            report(None, f"{rel}: entry is truncated or corrupt; skipped")
        elif not flags & 0x08 and crc and zlib.crc32(body) != crc:
            report(None, f"{rel}: CRC mismatch (corrupt entry); skipped")
        else:
            out[rel] = body
        pos = data.find(_LOCAL_HEADER, max(end, start))
    return out

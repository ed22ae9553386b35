"""Paths as the index stores them, as each system writes them, and names a system cannot hold.

**Stored with '/'.** Every path the index holds (``notes/work/plan.md``, ``@Vault/Daily/x.md``
for a source in place) is written with '/' on every system, so an index and the paths an agent
or a script passes back read the same everywhere; machine output (``--json``, MCP) keeps them
so. **Shown the system's way**: a person reads ``notes\\work\\plan.md`` on Windows
(:func:`shown`), and what they type there may use either separator (:func:`slashed`). On Linux
and macOS a backslash is a character a file name may hold, so it is taken as written.

**Names.** Windows cannot hold a name with ``< > : " | ? *`` or a control character, one ending
in a dot or a space, or a device name (``CON``, ``NUL``, ``COM1``... with any extension);
:func:`windows_name_problem` says which (and refuses a name that is not UTF-8, which memlens
indexes nowhere), :func:`portable_name` makes one every system holds (what importers write).
See docs/platforms.md.

Which system this is comes from ``os.name``, or ``MEMLENS_PATH_STYLE`` (``windows`` or
``posix``) for a whole process tree, as the tests use it to run the Windows way here.
"""

from __future__ import annotations

import os
import re

ENV = "MEMLENS_PATH_STYLE"
STYLES = ("posix", "windows")
# what no file name on Windows may hold ('/' and '\\' are separators there)
_WINDOWS_REFUSES = r'\\/:*?"<>|\x00-\x1f'
_REFUSED_CHAR = re.compile(f"[{_WINDOWS_REFUSES}]")
# what a name memlens writes never holds: that, and DEL (a control character everywhere)
UNSAFE_RUN = re.compile(f"[{_WINDOWS_REFUSES}\x7f]+")
# a byte of a name that is not UTF-8, as Python reads it from the disk (surrogateescape)
_SURROGATE = re.compile("[\ud800-\udfff]")
# names Windows keeps for devices, with any extension ("con.txt" too)
DEVICE_NAMES = frozenset({"CON", "PRN", "AUX", "NUL",
                          *(f"{d}{i}" for d in ("COM", "LPT") for i in "123456789¹²³")})


def windows() -> bool:
    """Whether paths are written the Windows way in this process."""
    style = os.environ.get(ENV, "").strip().lower()
    return style == "windows" if style in STYLES else os.name == "nt"


def shown(stored: str, *, on_windows: bool | None = None) -> str:
    """A stored path as this system writes it: '\\' between names on Windows."""
    if on_windows if on_windows is not None else windows():
        return stored.replace("/", "\\")
    return stored


def slashed(path: str, *, on_windows: bool | None = None) -> str:
    """A path a person typed or the system wrote, with '/' between names: on Windows '\\'
    separates names too; elsewhere it is a character of a name and is kept."""
    if on_windows if on_windows is not None else windows():
        return path.replace("\\", "/")
    return path


def windows_name_problem(name: str) -> str | None:
    """Why Windows cannot hold the file or folder name ``name``; None when it can. A name that
    is not valid UTF-8 (its bad bytes arrive as lone surrogates) is refused too: memlens
    indexes no such name on any system."""
    if _SURROGATE.search(name):
        return "is not valid UTF-8"
    bad = sorted(set(_REFUSED_CHAR.findall(name)))
    if bad:
        shown_chars = " ".join(c if c.isprintable() else f"\\x{ord(c):02x}"
                               for c in bad)
        return f"holds {shown_chars}, which Windows does not allow in a name"
    if name.endswith((".", " ")) and name not in (".", ".."):
        return f"ends in {'a dot' if name.endswith('.') else 'a space'}, which Windows drops"
    if name.partition(".")[0].strip().upper() in DEVICE_NAMES:
        return f"is {name.partition('.')[0].strip().upper()}, a device name on Windows"
    return None


def portable_name(name: str, fallback: str = "untitled") -> str:
    """``name`` changed only as far as every system can hold it: bytes that are not UTF-8
    read as Windows-1252 (what such names mostly are: "caf\\xe9" -> "café"), each run of
    characters Windows refuses becomes '-', a trailing dot or space goes, a device name gets
    a '-' after it ("con.txt" -> "con-.txt")."""
    s = UNSAFE_RUN.sub("-", readable_name(name)).rstrip(". ")
    head, dot, tail = s.partition(".")
    if head.strip().upper() in DEVICE_NAMES:
        s = f"{head}-{dot}{tail}"
    return s or fallback


def readable_name(name: str) -> str:
    """A name read from the disk with its bytes that are not UTF-8 as lone surrogates
    (surrogateescape): each such byte read as Windows-1252, any other lone surrogate '-'."""
    if not _SURROGATE.search(name):
        return name
    byte = re.sub("[\udc80-\udcff]",
                  lambda m: bytes([ord(m[0]) - 0xDC00]).decode("cp1252", "replace"), name)
    return _SURROGATE.sub("-", byte).replace("\ufffd", "-")

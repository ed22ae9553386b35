"""Merge people seen in an export into ``profile/relationships.json`` (``--people``).

Additive only: a new person is added with just ``name`` (and ``aliases`` when the export knows
other spellings); an existing person matched case-insensitively by name or alias only gains the
aliases they lack. Nothing the user wrote is changed, reordered or removed. The file is written
as ``json.dumps(indent=2, ensure_ascii=False)`` plus a newline, atomically, and only when
something was added.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from engine.retrieval.entities import PROFILE_RELATIVE_PATH

from ._util import parse_json
from .atomic import atomic_write

PEOPLE_FILE = PROFILE_RELATIVE_PATH  # one definition: engine/retrieval/entities.py

_PHONE = re.compile(r"^[+(]?\d[\d\s().\-/]{5,}$")
_GENERIC = re.compile(r"^(?:speaker|spk|speaker_|unknown speaker|participant|guest)[\s_#-]*\d*$",
                      re.IGNORECASE)
_NOT_PEOPLE = {"unknown", "system", "you", "me", "deleted account", "whatsapp", "bot", ""}


def is_person_name(name: str) -> bool:
    """False for phone numbers, e-mail addresses, generic speaker labels and placeholders."""
    s = name.strip()
    if s.casefold() in _NOT_PEOPLE or len(s) > 80:
        return False
    return not (_PHONE.match(s) or _GENERIC.match(s) or "@" in s)


def merge_people(root: Path, found: Iterable[tuple[str, list[str]]], *, dry_run: bool,
                 problem: Callable[[str, int | None, str], None]) -> list[str]:
    """Merge; returns what was (or, on a dry run, would be) added, one line per change."""
    identities = _group(found)
    if not identities:
        return []
    path = root / PEOPLE_FILE
    data: dict = {"people": []}
    if path.exists():
        try:
            data = parse_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problem(PEOPLE_FILE, getattr(exc, "lineno", None),
                    f"not valid JSON ({exc}); people were not merged")
            return []
        if not isinstance(data, dict) or not isinstance(data.setdefault("people", []), list):
            problem(PEOPLE_FILE, None, "expected {\"people\": [...]}; people were not merged")
            return []
    people: list = data["people"]
    changes: list[str] = []
    for name, aliases in identities:
        keys = {k.casefold() for k in [name, *aliases]}
        matches = [i for i, p in enumerate(people) if isinstance(p, dict)
                   and keys & {k.casefold() for k in _names_of(p)}]
        if not matches:
            person: dict = {"name": name}
            if aliases:
                person["aliases"] = list(aliases)
            people.append(person)
            changes.append(f"{name} (new)" + (f", aliases {', '.join(aliases)}" if aliases
                                              else ""))
            continue
        if len(matches) > 1:
            problem(PEOPLE_FILE, None, f"{name!r} matches {len(matches)} people; not merged")
            continue
        person = people[matches[0]]
        have = {k.casefold() for k in _names_of(person)}
        missing = [n for n in [name, *aliases] if n.casefold() not in have]
        if not missing:
            continue
        current = person.get("aliases")
        if current is None:
            current = person["aliases"] = []
        if not isinstance(current, list):
            problem(PEOPLE_FILE, None, f"{person.get('name')!r}: 'aliases' is not a list; "
                    "not merged")
            continue
        added = []
        for n in missing:
            if n.casefold() not in {str(a).casefold() for a in current}:
                current.append(n)
                added.append(n)
        if added:
            changes.append(f"{person.get('name')}: + alias {', '.join(added)}")
    if changes and not dry_run:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        atomic_write(path, text.encode("utf-8"))
    return changes


def _names_of(person: dict) -> list[str]:
    names = [person["name"]] if isinstance(person.get("name"), str) else []
    aliases = person.get("aliases")
    if isinstance(aliases, list):
        names += [a for a in aliases if isinstance(a, str)]
    return names


def _group(found: Iterable[tuple[str, list[str]]]) -> list[tuple[str, list[str]]]:
    """One identity per name (case-insensitive), aliases united, junk names dropped."""
    out: dict[str, tuple[str, list[str]]] = {}
    for name, aliases in found:
        if not is_person_name(name):
            continue
        key = name.casefold()
        entry = out.setdefault(key, (name, []))
        for alias in aliases:
            if (is_person_name(alias) and alias.casefold() != key
                    and alias.casefold() not in {a.casefold() for a in entry[1]}):
                entry[1].append(alias)
    return list(out.values())

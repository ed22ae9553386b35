"""WhatsApp "Export chat" ``.txt`` (or its ``.zip``) -> ``data/telegram/whatsapp-<chat>.jsonl``.

WhatsApp has no source type of its own in the data layer; its messages are written in the
``telegram`` message format (``{"date", "from", "text"}`` plus ``id``, ``tz``, ``system``?) in
files prefixed ``whatsapp-`` so they stay apart from Telegram chats.

Both styles are read: Android ``DD/MM/YY, HH:MM - Sender: text`` and iOS
``[DD/MM/YY, HH:MM:SS] Sender: text`` (with or without the comma, an optional leading U+200E),
with ``/``, ``.`` or ``-`` between date parts, 24 h or 12 h clocks (``PM``, ``p.m.``,
``p. m.``, U+202F before the suffix). The day/month order is detected from the data (a first
field above 12 means day first, a second field above 12 means month first); when every date
is ambiguous a 12 h clock suggests month first, else day first, and a note says so. Lines that
do not start with a timestamp continue the message before them. System lines (no sender, or
iOS's U+200E-prefixed notices) are kept as ``"system": true`` messages; the end-to-end
encryption notice, media placeholders (``<Media omitted>``, ``<attached: …>``,
``image omitted``) and deleted-message stubs are skipped. Timestamps have no zone: the
configured local zone is applied and recorded in ``tz``.

There are no message ids in an export; ``id`` is a hash of (time, sender, text, occurrence),
so a newer export of the same chat dedupes against the older one.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ._util import ImportFailed, iso, local, slugify, stable_id
from .base import Importer
from .context import ImportContext

_MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_DATE = r"(?P<d1>\d{1,4})(?P<sep>[./-])(?P<d2>\d{1,2})(?P=sep)(?P<d3>\d{1,4})"
_TIME = (r"(?P<h>\d{1,2})[:.](?P<mi>\d{2})(?:[:.](?P<s>\d{2}))?"
         r"(?:\s?(?P<ampm>[AaPp])\.?\s?[Mm]\.?)?")
_IOS = re.compile(rf"^\[{_DATE},?\s{_TIME}\]\s?(?P<rest>.*)$")
_ANDROID = re.compile(rf"^{_DATE},?\s{_TIME}\s?[-–]\s(?P<rest>.*)$")
# a line shaped like a message header whose date we cannot read (e.g. "Aug 6, 2016, 13:23 - ")
_LOOSE = re.compile(r"^\[?(?:[A-Za-z]{3,9}\.?\s\d{1,2},?\s\d{2,4}|\d{1,4}\S*?)[,\s]+"
                    r"\d{1,2}[:.]\d{2}\S*(?:\s?[AaPp]\.?\s?[Mm]\.?)?\s?(?:\]|[-–]\s)")
_SENDER = re.compile(r"(?P<sender>[^:\n]{1,80}?): (?P<text>.*)$", re.S)
_MEDIA = re.compile(
    r"^(?:<Media omitted>|<attached: [^>]*>|<Medien ausgeschlossen>|<Multimedia omitido>|"
    r"<Médias omis>|<Media weggelaten>|(?:image|video|audio|sticker|GIF|document|"
    r"Contact card|photo) omitted|\S.*\.\w{2,5} \(file attached\)|null)$", re.IGNORECASE)
_DELETED = re.compile(r"^(?:This message was deleted\.?|You deleted this message\.?)$")
_BOILERPLATE = re.compile(r"end-to-end encrypt", re.IGNORECASE)
_CHAT_NAME = re.compile(r"^(?:WhatsApp Chat (?:with|mit|met|con|avec|com)|Chat de WhatsApp "
                        r"con|Conversa do WhatsApp com|WhatsApp Chat -)\s*(?P<name>.+)$",
                        re.IGNORECASE)


@dataclass
class _Header:
    line: int
    d: tuple[str, str, str]
    h: int
    mi: int
    s: int
    ampm: str | None
    rest: str
    body: list[str] = field(default_factory=list)


class WhatsAppImporter(Importer):
    kind = "whatsapp"
    description = "WhatsApp 'Export chat' .txt or .zip (Android or iOS) -> data/telegram/"

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree()
        chats = [n for n in tree.names if n.lower().endswith(".txt")]
        if not chats:
            raise ImportFailed(f"{ctx.source}: no .txt chat export found")
        for i, name in enumerate(chats):
            data = tree.read(name)
            ctx.progress(i, len(chats))
            if data is None:
                continue
            label = tree.label(name)
            text = self.text_of(ctx, tree, label, data, "a chat export")
            if text is None:
                continue
            chat = self._chat_name(name, tree)
            records, senders = self._parse_chat(ctx, text, label)
            if records is None:
                if tree.mode == "file":
                    raise ImportFailed(f"{label}: not a WhatsApp chat export (no line starts "
                                       "with a date and time)")
                ctx.problem(label, None, "no line starts with a WhatsApp timestamp; skipped")
                continue
            if records:
                ctx.messages(f"data/telegram/whatsapp-{slugify(chat, fallback='chat')}.jsonl",
                             records, ts_field="date", sender_field="from", text_field="text")
            if len(senders) == 2 and chat in senders:
                ctx.person(chat)  # a one-to-one chat: the other sender is the owner
            else:
                for sender in senders:
                    ctx.person(sender)
        ctx.progress(len(chats), len(chats))

    @staticmethod
    def _chat_name(name: str, tree) -> str:
        stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        m = _CHAT_NAME.match(stem)
        if m:
            return m["name"].strip()
        if stem.lower() in ("_chat", "chat"):
            parent = name.rsplit("/", 2)[-2] if "/" in name else tree.display_name
            m = _CHAT_NAME.match(parent)
            return m["name"].strip() if m else parent
        return stem

    def _parse_chat(self, ctx: ImportContext, text: str,
                    label: str) -> tuple[list[dict[str, Any]] | None, dict[str, None]]:
        headers: list[_Header | None] = []  # None: an unreadable header (its lines dropped)
        current: _Header | None = None
        orphan = 0
        first_orphan: int | None = None
        for n, raw in enumerate(text.split("\n"), start=1):
            line = raw.replace("\u202f", " ").replace("\u00a0", " ")
            stripped = line.lstrip(_MARKS)
            m = _IOS.match(stripped) or _ANDROID.match(stripped)
            if m:
                current = _Header(n, (m["d1"], m["d2"], m["d3"]), int(m["h"]), int(m["mi"]),
                                  int(m["s"] or 0), m["ampm"], m["rest"])
                headers.append(current)
                continue
            if _LOOSE.match(stripped):
                ctx.problem(label, n, f"unrecognised date/time format: {stripped[:40]!r}; "
                            "message skipped")
                current = None
                headers.append(None)
                continue
            if current is not None:
                current.body.append(raw)
            elif headers and headers[-1] is None:
                continue  # continuation of a message we could not read
            elif raw.strip():
                orphan += 1
                first_orphan = first_orphan or n
        good = [h for h in headers if h is not None]
        if not good:
            return None, {}
        if orphan:
            ctx.problem(label, first_orphan, f"{orphan} line(s) before the first message "
                        "ignored")
        order = self._date_order(ctx, good, label)
        records: list[dict[str, Any]] = []
        senders: dict[str, None] = {}
        seen: Counter[tuple[str, str, str]] = Counter()
        for h in good:
            dt = self._datetime(h, order)
            if dt is None:
                ctx.problem(label, h.line, f"invalid date {'/'.join(h.d)} "
                            f"(read as {order}); message skipped")
                continue
            record = self._record(ctx, h, dt)
            if record is None:
                continue
            key = (record["date"], record["from"], record["text"])
            record["id"] = stable_id(*key, seen[key], prefix="wa-")
            seen[key] += 1
            record["tz"] = ctx.tz_name
            records.append(record)
            if not record.get("system"):
                senders[record["from"]] = None
        return records, senders

    def _date_order(self, ctx: ImportContext, headers: list[_Header], label: str) -> str:
        if any(len(h.d[0]) == 4 for h in headers):
            return "YMD"
        first = max(int(h.d[0]) for h in headers)
        second = max(int(h.d[1]) for h in headers)
        if first > 12 and second <= 12:
            return "DMY"
        if second > 12 and first <= 12:
            return "MDY"
        if first > 12 and second > 12:
            dmy = sum(1 for h in headers if int(h.d[0]) > 12)
            mdy = sum(1 for h in headers if int(h.d[1]) > 12)
            order = "DMY" if dmy >= mdy else "MDY"
            ctx.problem(label, None, f"dates disagree on day/month order; read as {order}")
            return order
        order = "MDY" if any(h.ampm for h in headers) else "DMY"
        ctx.note(f"{label}: day/month order is ambiguous (no day above 12); assumed "
                 f"{'month/day' if order == 'MDY' else 'day/month'}")
        return order

    @staticmethod
    def _datetime(h: _Header, order: str) -> datetime | None:
        a, b, c = (int(x) for x in h.d)
        if order == "YMD":
            y, mo, d = a, b, c
        elif order == "DMY":
            d, mo, y = a, b, c
        else:
            mo, d, y = a, b, c
        if y < 100:
            y += 2000
        hour = h.h
        if h.ampm:
            if hour > 12:
                return None
            hour = hour % 12 + (12 if h.ampm.lower() == "p" else 0)
        try:
            return datetime(y, mo, d, hour, h.mi, h.s)
        except ValueError:
            return None

    def _record(self, ctx: ImportContext, h: _Header, naive: datetime) -> dict[str, Any] | None:
        rest = h.rest.lstrip(_MARKS)
        m = _SENDER.match(rest)
        sender: str | None = None
        system = False
        if m and not any(q in m["sender"] for q in "\"“”«»"):
            sender = m["sender"].strip(_MARKS + " ")
            first = m["text"]
            if first.startswith(tuple(_MARKS)):
                system = True  # iOS marks notices (group created, missed call…) with U+200E
        else:
            first = rest
            system = True
        lines = [first.strip(_MARKS), *h.body]
        if _BOILERPLATE.search(lines[0]):
            ctx.skip("encryption notices")
            return None
        if _MEDIA.match(lines[0].strip()):
            lines = lines[1:]
            if not "\n".join(lines).strip():
                ctx.skip("media without text")
                return None
        text = "\n".join(lines).strip()
        if not text:
            ctx.skip("empty messages")
            return None
        if _DELETED.match(text):
            ctx.skip("deleted messages")
            return None
        record: dict[str, Any] = {"date": iso(local(naive, ctx.tz)),
                                  "from": sender if sender else "system", "text": text}
        if system:
            record["system"] = True
        return record

"""WhatsApp "Export chat" ``.txt`` (or its ``.zip``) -> ``data/whatsapp/<chat>.jsonl``.

One log per chat, named after the chat (``WhatsApp Chat with Maya.txt``, ``WhatsApp-Maya.txt``
and a zip's ``_chat.txt`` in ``WhatsApp Chat - Maya.zip`` are all ``Maya``), in the telegram
message format (``{"date", "from", "text"}`` plus ``id``, ``tz``, ``system``?). A chat already
imported under another name is found by its messages: the log holding any of them takes the
new ones. A log where earlier importers wrote WhatsApp chats (``data/telegram/whatsapp-*``) is
moved into ``data/whatsapp/`` when its chat is imported again.

Both styles are read: Android ``DD/MM/YY, HH:MM - Sender: text`` and iOS
``[DD/MM/YY, HH:MM:SS] Sender: text`` (with or without the comma, an optional leading U+200E),
with ``/``, ``.`` or ``-`` between date parts, 24 h or 12 h clocks (``PM``, ``p.m.``,
``p. m.``, U+202F before the suffix). The day/month order is decided per file (a note says
which and why): a first field above 12 means day first, a second field above 12 month first;
when every date is ambiguous the sequence decides (a chat is in time order, so under the right
order consecutive dates never go back and move by days, under the wrong one by months);
failing that, dotted dates are day first, a 12 h clock suggests month first, else day first.
``ctx.date_order`` ("dmy"/"mdy", ``--date-order``) forces it. Lines that
do not start with a timestamp continue the message before them. System lines (no sender, or
iOS's U+200E-prefixed notices) are kept as ``"system": true`` messages; the end-to-end
encryption notice, media placeholders (``<Media omitted>``, ``<attached: …>``,
``image omitted``) and deleted-message stubs are skipped. Timestamps have no zone: they are
read as wall-clock times in the import's zone (``--tz``, else the system zone), written with
that zone's offset and recorded in ``tz``.

There are no message ids in an export; ``id`` is a hash of (time, sender, text, occurrence),
so a newer export of the same chat dedupes against the older one, message by message.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from engine.display import plural
from engine.extractors import channel_name

from ._util import ImportFailed, file_stem, iso, local, slugify, stable_id
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
_ORDER_WORDS = {"DMY": "day/month", "MDY": "month/day"}
_CHAT_NAME = re.compile(r"^(?:(?:WhatsApp[ _-]Chat[ _-](?:with|mit|met|con|avec|com)|Chat de "
                        r"WhatsApp con|Conversa do WhatsApp com|WhatsApp Chat -)[\s_-]*|"
                        r"WhatsApp[\s_-]+)(?P<name>\S.*)$", re.IGNORECASE)
_DOWNLOAD_COPY = re.compile(r"\s*\(\d{1,3}\)$")  # "… (2)": a browser's second download
CHAT_FOLDER = "data/whatsapp"
LEGACY_PREFIX = "data/telegram/whatsapp-"  # where earlier importers wrote WhatsApp chats
LEGACY_LOGS = f"{LEGACY_PREFIX}*.jsonl"


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
    sep: str = "/"

    @property
    def date(self) -> str:
        """The date as written (``12/1/26``)."""
        return self.sep.join(self.d)


class WhatsAppImporter(Importer):
    kind = "whatsapp"
    description = "WhatsApp 'Export chat' .txt or .zip (Android or iOS) -> data/whatsapp/"

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
            chat, named = self._chat_name(name, tree)
            records, senders = self._parse_chat(ctx, text, label)
            if records is None:
                if tree.mode == "file":
                    raise ImportFailed(f"{label}: not a WhatsApp chat export (no line starts "
                                       "with a date and time)")
                ctx.problem(label, None, "no line starts with a WhatsApp timestamp; skipped")
                continue
            target = self._log_for(ctx, label, chat, named, records) if records else None
            if target is not None:
                ctx.messages(target, records, ts_field="date", sender_field="from",
                             text_field="text")
            if len(senders) == 2 and chat in senders:
                ctx.person(chat)  # a one-to-one chat: the other sender is the owner
            else:
                for sender in senders:
                    ctx.person(sender)
        ctx.progress(len(chats), len(chats))

    @staticmethod
    def _chat_name(name: str, tree) -> tuple[str, bool]:
        """The chat's name from the export's file (or, for ``_chat.txt``, folder/zip) name,
        without WhatsApp's wording around it or a download's `` (2)``; and whether that
        wording was there (else the name is only a file's: ``backup.txt``)."""
        stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if stem.lower() in ("_chat", "chat"):
            stem = name.rsplit("/", 2)[-2] if "/" in name else tree.display_name
            stem = stem.removesuffix(".zip").removesuffix(".ZIP")
        stem = _DOWNLOAD_COPY.sub("", stem).strip()
        m = _CHAT_NAME.match(stem)
        return (m["name"].strip(), True) if m else (stem, False)

    def _log_for(self, ctx: ImportContext, label: str, chat: str, named: bool,
                 records: list[dict[str, Any]]) -> str | None:
        """The log the chat's messages go to: a ``data/whatsapp/`` log already holding most of
        them (the same chat exported under another file name), else one named after the
        chat. An earlier importer's log of the chat (by its name or its messages) is moved
        into it, and names it when the export's file name does not. None (said as a
        problem): the chat is there already, read with another zone or date order."""
        ids = {r["id"] for r in records}

        def same_chat(rel: str) -> int:
            """Messages shared with the log ``rel``, when they make it the same chat: half of
            the smaller side at least (one greeting sent to two groups does not)."""
            theirs = ctx.log_ids(rel)
            n = len(ids & theirs)
            return n if n and 2 * n >= min(len(ids), len(theirs)) else 0

        shared = {rel: n for rel in ctx.existing(f"{CHAT_FOLDER}/*.jsonl")
                  if (n := same_chat(rel))}
        by_name = f"{LEGACY_PREFIX}{slugify(chat, fallback='chat')}.jsonl"
        legacy = [rel for rel in ctx.existing(LEGACY_LOGS) if rel == by_name or same_chat(rel)]
        if shared:
            own = f"{CHAT_FOLDER}/{file_stem(chat, fallback='chat')}.jsonl"
            target = max(shared, key=lambda rel: (shared[rel], rel == own))
        else:
            # an old log's chat as every view names it (its file name without the prefix)
            name = chat if named or not legacy else channel_name("whatsapp", legacy[0])
            target = f"{CHAT_FOLDER}/{file_stem(name, fallback='chat')}.jsonl"
            for rel in (target, *legacy):
                if (why := self._read_otherwise(ctx, rel, records)) is not None:
                    ctx.problem(label, None, why)
                    return None
        for rel in legacy:
            ctx.move_log(rel, target, "WhatsApp chats have a folder of their own")
        return target

    @staticmethod
    def _read_otherwise(ctx: ImportContext, rel: str,
                        records: list[dict[str, Any]]) -> str | None:
        """Why the chat is in the log ``rel`` already though no message id matches: most of
        its messages are there by sender and text, at other times, so an import with another
        ``--tz`` or ``--date-order`` would add them twice."""
        if not (ctx.root / rel).is_file() or {r["id"] for r in records} & ctx.log_ids(rel):
            return None  # the same options give the same ids
        said: Counter[tuple[str, str]] = Counter()
        zones: set[str] = set()
        for record in ctx.log_records(rel):
            said[(str(record.get("from")), str(record.get("text")))] += 1
            if isinstance(record.get("tz"), str):
                zones.add(record["tz"])
        spoken = [r for r in records if not r.get("system")]
        matched = 0
        for r in spoken:
            key = (r["from"], r["text"])
            if said[key]:
                said[key] -= 1
                matched += 1
        if not spoken or matched < min(3, len(spoken)) or 2 * matched < len(spoken):
            return None
        written = f"written with --tz {', '.join(sorted(zones))}" if zones else "written"
        return (f"{matched} of its {len(spoken)} messages are in {rel} already at other times "
                f"({written}; this import read times as {ctx.tz_name}): nothing imported from "
                "it, so none comes in twice; import it with the --tz and --date-order the "
                "first import used")

    def _parse_chat(self, ctx: ImportContext, text: str,
                    label: str) -> tuple[list[dict[str, Any]] | None, dict[str, None]]:
        headers: list[_Header | None] = []  # None: an unreadable header (its lines dropped)
        current: _Header | None = None
        orphan = 0
        first_orphan: int | None = None
        # an export writes every header one way (iOS or Android brackets, year first or not):
        # the first header's; a line shaped another way is text a message quotes (a pasted
        # log), which taken as a header sent every date to year first and dropped the rest
        layout: tuple[bool, bool] | None = None
        quoted = 0
        for n, raw in enumerate(text.split("\n"), start=1):
            line = raw.replace("\u202f", " ").replace("\u00a0", " ")
            stripped = line.lstrip(_MARKS)
            m = _IOS.match(stripped) or _ANDROID.match(stripped)
            shape = (m.re is _IOS, len(m["d1"]) == 4) if m else None
            layout = layout or shape
            if m and shape == layout:
                current = _Header(n, (m["d1"], m["d2"], m["d3"]), int(m["h"]), int(m["mi"]),
                                  int(m["s"] or 0), m["ampm"], m["rest"], sep=m["sep"])
                headers.append(current)
                continue
            quoted += m is not None and current is not None
            if m is None and _LOOSE.match(stripped):
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
        if quoted:
            ctx.note(f"{label}: {plural(quoted, 'line')} shaped like another export's message "
                     "header kept as the text of the message quoting it")
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
        """The file's date order ("YMD", "DMY" or "MDY"); one note says which and why."""
        if any(len(h.d[0]) == 4 for h in headers):
            return "YMD"
        if ctx.date_order:
            order, why = ctx.date_order.upper(), f"--date-order {ctx.date_order}"
        else:
            order, why = self._detect_order(ctx, headers, label)
        ctx.note(f"{label}: dates read {_ORDER_WORDS[order]} ({why})")
        return order

    def _detect_order(self, ctx: ImportContext, headers: list[_Header],
                      label: str) -> tuple[str, str]:
        """Day/month order from the dates themselves: a field above 12 settles it; else the
        sequence (a chat is in time order: under the right order its dates never go back
        and move by days); else a dotted date means day first, a 12 h clock month first."""
        over1 = next((h for h in headers if int(h.d[0]) > 12), None)
        over2 = next((h for h in headers if int(h.d[1]) > 12), None)
        if over1 and not over2:
            return "DMY", f"{over1.date} has a day above 12"
        if over2 and not over1:
            return "MDY", f"{over2.date} has a day above 12"
        if over1 and over2:
            dmy = sum(1 for h in headers if int(h.d[0]) > 12)
            mdy = sum(1 for h in headers if int(h.d[1]) > 12)
            order = "DMY" if dmy >= mdy else "MDY"
            ctx.problem(label, None, f"dates disagree on day/month order; read as {order}")
            return order, f"{max(dmy, mdy)} dates against {min(dmy, mdy)}"
        by_sequence = self._order_from_sequence(headers)
        if by_sequence:
            return by_sequence
        if all(h.sep == "." for h in headers):
            return "DMY", "no day above 12; dotted dates are written day first"
        if any(h.ampm for h in headers):
            return "MDY", ("ambiguous: no day above 12 and the sequence fits both; a 12-hour "
                           "clock suggests month first; --date-order dmy|mdy to force")
        return "DMY", ("ambiguous: no day above 12 and the sequence fits both; assumed day "
                       "first; --date-order dmy|mdy to force")

    @staticmethod
    def _order_from_sequence(headers: list[_Header]) -> tuple[str, str] | None:
        """The order under which the consecutive dates go back in time fewer times, then
        move fewer days in all; None when both read the same (e.g. a single date)."""
        steps: list[tuple[str, str]] = []  # consecutive distinct dates as written
        days: dict[str, list[int]] = {"DMY": [], "MDY": []}
        last: str | None = None
        for h in headers:
            if h.date == last:
                continue
            a, b, y = (int(x) for x in h.d)
            y += 2000 if y < 100 else 0
            try:
                dmy, mdy = date(y, b, a).toordinal(), date(y, a, b).toordinal()
            except ValueError:
                continue  # impossible either way (a zero field); reported when read
            if last is not None:
                steps.append((last, h.date))
            last = h.date
            days["DMY"].append(dmy)
            days["MDY"].append(mdy)
        score = {}
        for order, seq in days.items():
            moves = [after - before for before, after in zip(seq, seq[1:], strict=False)]
            score[order] = (sum(1 for m in moves if m < 0), sum(abs(m) for m in moves))
        if not steps or score["DMY"] == score["MDY"]:
            return None
        win, lose = sorted(score, key=lambda o: score[o])
        (back_w, span_w), (back_l, span_l) = score[win], score[lose]
        more = " \u2026" if len(steps) > 1 else ""
        example = f"{steps[0][0]} \u2192 {steps[0][1]}{more}"
        if back_w == 0 and back_l:
            why = "in time order only that way"
        elif back_w != back_l:
            why = f"back in time {back_w} times that way, {back_l} the other"
        elif back_w == 0:
            why = f"spans {plural(span_w, 'day')} that way, {span_l} the other"
        else:
            why = f"moves {span_w} days in all that way, {span_l} the other"
        return win, f"{example}: {why}"

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

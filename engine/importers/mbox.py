"""mbox mailboxes (Thunderbird, Google Takeout, mailing-list archives) -> email catalog.

One ``email_catalog`` record per message in ``data/email/catalog/<mbox name>.jsonl`` (per
message, not per thread: a record stays small, a new reply is a plain append, and the thread
is still one field away): ``{"id", "date", "from", "to", "subject", "summary", "tags",
"thread", "in_reply_to"?, "cc"?, "from_address"?, "attachments"?}``.

* ``id``: the Message-ID (without ``<>``), else a hash of the headers and body start.
* ``thread``: Gmail's ``X-GM-THRID`` when present, else the root of the References chain
  (its first id), else the In-Reply-To chain followed through the mailbox to its top; a
  message that starts a thread has its own id.
* ``date``: the Date header with its own offset (a ``-0000`` / missing zone takes the local
  zone), else the ``From `` envelope line's date.
* ``summary``: the text/plain part (else the HTML part without tags) with quoted lines,
  the "On … wrote:" line before them and the signature removed, at most 2,000 characters;
  a message with no text but attachments is summarised by the attachments' names.
* ``tags``: ``X-Gmail-Labels`` (comma-separated; quoted labels may hold commas).

Messages are split at ``From `` lines that follow a blank line (RFC 4155) or look like an
envelope (``From <addr> <weekday> <month> …``), so a body line starting "From " that was not
quoted does not split a message.
"""

from __future__ import annotations

import csv
import email
import email.policy
import html
import re
from datetime import datetime, timedelta, timezone
from email.message import Message
from email.utils import getaddresses, parsedate_to_datetime
from typing import Any

from ._util import ImportFailed, iso, looks_binary, slugify, stable_id
from .base import Importer
from .context import ImportContext

SUMMARY_CHARS = 2000
#: the stdlib header parser is quadratic in a header's length (800 KB: 13 s), so headers are
#: cut before parsing: each to HEADER_CAP bytes, the block to HEADER_BLOCK_CAP (later ones
#: dropped); the message is kept and a problem names the header
HEADER_CAP = 16 << 10
HEADER_BLOCK_CAP = 256 << 10


class _CappedPolicy(email.policy.EmailPolicy):
    """The default policy, but a header of a MIME part is cut to HEADER_CAP before it is
    parsed (the message's own headers are cut by :func:`cap_headers` already)."""

    def header_fetch_parse(self, name: str, value: str) -> Any:
        return super().header_fetch_parse(name, value[:HEADER_CAP])


_POLICY = _CappedPolicy()
_ENVELOPE = re.compile(rb"^From \S+\s+(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\b")
_ENV_DATE = re.compile(r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\w{3})\s+(\d{1,2}) (\d{1,2}):(\d{2})"
                       r"(?::(\d{2}))?(?: ([+-]\d{4}|[A-Z]{2,5}))? (\d{4})")
_MSGID = re.compile(r"<([^<>\s]+)>")
_WROTE = re.compile(r"^(?:On .{0,200}wrote:|.{0,120} wrote:|-----Original Message-----)\s*$",
                    re.IGNORECASE)
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def split_mbox(data: bytes) -> list[tuple[int, bytes, bytes]]:
    """(envelope line number, envelope line, message bytes) for each message."""
    out: list[tuple[int, bytes, list[bytes]]] = []
    prev_blank = True
    for n, line in enumerate(data.splitlines(keepends=True), start=1):
        if line.startswith(b"From ") and (prev_blank or _ENVELOPE.match(line)):
            out.append((n, line.rstrip(b"\r\n"), []))
        elif out:
            out[-1][2].append(line)
        prev_blank = not line.strip()
    return [(n, env, b"".join(body)) for n, env, body in out]


def cap_headers(raw: bytes) -> tuple[bytes, list[str]]:
    """(message with its headers cut to the caps, one line per cut)."""
    ends = [i for i in (raw.find(b"\n\n"), raw.find(b"\r\n\r\n")) if i >= 0]
    split = min(ends) if ends else len(raw)
    if split <= HEADER_CAP:
        return raw, []
    head, rest = raw[:split], raw[split:]
    folded: list[list[bytes]] = []
    for ln in head.splitlines(keepends=True):
        if folded and ln[:1] in (b" ", b"\t"):
            folded[-1].append(ln)
        else:
            folded.append([ln])
    fields = [b"".join(parts) for parts in folded]
    out, cuts, total = [], [], 0
    for i, f in enumerate(fields):
        if len(f) > HEADER_CAP:
            name = f.split(b":", 1)[0][:60].decode("latin-1")
            cuts.append(f"header {name!r} is {len(f):,} bytes; cut to {HEADER_CAP:,} "
                        "(the message is kept)")
            f = f[:HEADER_CAP].rstrip(b"\r\n") + b"\n"
        if total + len(f) > HEADER_BLOCK_CAP:
            cuts.append(f"headers over {HEADER_BLOCK_CAP:,} bytes; the last "
                        f"{len(fields) - i} dropped (the message is kept)")
            break
        out.append(f)
        total += len(f)
    # ``rest`` starts with the blank line that ends the headers (none: headers only)
    return b"".join(out).rstrip(b"\r\n") + (rest or b"\n"), cuts


def _long_part_headers(msg: Message) -> list[str]:
    """One line per header of a MIME part that :class:`_CappedPolicy` cuts."""
    out = []
    for n, part in enumerate(msg.walk()):
        for name, value in part.raw_items() if n else ():
            if len(value) > HEADER_CAP:
                out.append(f"MIME part {n}: header {name[:60]!r} is {len(value):,} characters; "
                           f"cut to {HEADER_CAP:,} (the message is kept)")
    return out


class MboxImporter(Importer):
    kind = "mbox"
    description = "mbox mailbox (file or folder of mbox files) -> data/email/catalog/<name>.jsonl"

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree()
        boxes = []
        for name in tree.names:
            data = tree.read(name)
            if data is None:
                continue
            first = data.lstrip()[:5]
            if first == b"From " and not looks_binary(data):
                boxes.append((name, data))
            elif tree.mode == "file":
                raise ImportFailed(f"{tree.label(name)}: not an mbox (it does not start with a "
                                   "'From ' envelope line)")
            elif name.lower().endswith((".mbox", ".mbx")) or looks_binary(data):
                ctx.problem(tree.label(name), 1, "not an mbox (no 'From ' envelope line); "
                            "skipped")
        if not boxes:
            raise ImportFailed(f"{ctx.source}: no mbox file found")
        for name, data in boxes:
            self._box(ctx, tree.label(name), name, data)

    def _box(self, ctx: ImportContext, label: str, name: str, data: bytes) -> None:
        parts = split_mbox(data)
        parsed: list[tuple[int, dict[str, Any], list[str], str | None]] = []
        for i, (line, envelope, raw) in enumerate(parts):
            if i % 50 == 0:
                ctx.progress(i, len(parts))
            raw, cuts = cap_headers(raw)
            for cut in cuts:
                ctx.problem(label, line, cut)
            try:
                msg = email.message_from_bytes(raw, policy=_POLICY)
                for cut in _long_part_headers(msg):
                    ctx.problem(label, line, cut)
                record, refs, reply = self._message(ctx, msg, envelope, label, line)
            except Exception as exc:  # noqa: BLE001 - one malformed message never stops a box
                ctx.problem(label, line, f"unreadable message ({type(exc).__name__}: {exc}); "
                            "skipped")
                continue
            if record is None:
                continue
            parsed.append((line, record, refs, reply))
        ctx.progress(len(parts), len(parts))
        # a thread is Gmail's id when given, else the root of the reply chain, followed
        # through the messages of this box (so a reply joins its parent's thread)
        by_id = {r["id"]: (r, refs, reply) for _, r, refs, reply in parsed}

        def thread_of(mid: str, depth: int = 0) -> str:
            if mid not in by_id or depth > 500:
                return mid
            record, refs, reply = by_id[mid]
            if "thread" in record:
                return record["thread"]
            parent = refs[0] if refs else reply
            if parent is None or parent == mid:
                return mid
            return thread_of(parent, depth + 1)

        records = []
        for _, record, _, _ in parsed:
            records.append((record, thread_of(record["id"])))
        records = [_ordered({**r, "thread": t}) for r, t in records]
        stem = name.rsplit("/", 1)[-1]
        stem = stem.rsplit(".", 1)[0] if "." in stem else stem
        if records:
            ctx.records(f"data/email/catalog/{slugify(stem, fallback='mbox')}.jsonl", records)

    def _message(self, ctx: ImportContext, msg: Message, envelope: bytes, label: str,
                 line: int) -> tuple[dict[str, Any] | None, list[str], str | None]:
        def header(key: str) -> str:
            try:
                value = msg.get(key)
            except Exception:  # noqa: BLE001 - malformed header
                value = msg.get_all(key, [""])[0] if hasattr(msg, "get_all") else ""
            return str(value or "").strip()

        subject = re.sub(r"\s+", " ", header("Subject")) or None
        senders = getaddresses([header("From")])
        from_name, from_addr = senders[0] if senders else ("", "")
        to = [n or a for n, a in getaddresses([header("To")]) if n or a]
        cc = [n or a for n, a in getaddresses([header("Cc")]) if n or a]
        dt = self._date(ctx, header("Date"), envelope, label, line)
        summary = _summary(msg)
        attachments = _attachments(msg)
        if not summary and attachments:
            summary = "Attachments: " + ", ".join(attachments)
        if not subject and not summary:
            ctx.skip("messages without subject or text")
            return None, [], None
        mid = _ids(header("Message-ID"))
        refs = _ids(header("References"))
        reply_ids = _ids(header("In-Reply-To"))
        reply = reply_ids[0] if reply_ids else (refs[-1] if refs else None)
        record: dict[str, Any] = {
            "id": mid[0] if mid else stable_id(header("Date"), from_addr, subject,
                                               (summary or "")[:200], prefix="mbox-"),
            "date": iso(dt) if dt else None,
            "from": from_name or from_addr or "unknown",
            "to": to,
            "subject": subject,
            "summary": summary,
            "tags": _labels(header("X-Gmail-Labels")),
        }
        if header("X-GM-THRID"):
            record["thread"] = f"gm-{header('X-GM-THRID')}"
        if reply:
            record["in_reply_to"] = reply
        if cc:
            record["cc"] = cc
        if attachments:
            record["attachments"] = attachments
        if from_addr and from_name:
            record["from_address"] = from_addr
        if from_name:
            ctx.person(from_name)
        return record, refs, reply

    @staticmethod
    def _date(ctx: ImportContext, raw: str, envelope: bytes, label: str,
              line: int) -> datetime | None:
        if raw:
            try:
                dt = parsedate_to_datetime(raw)
            except (TypeError, ValueError, IndexError):
                dt = None
            if dt is not None:
                return dt if dt.tzinfo else dt.replace(tzinfo=ctx.tz)
        m = _ENV_DATE.search(envelope.decode("latin-1"))
        if m:
            mon, day, hh, mm, ss, zone, year = m.groups()
            try:
                naive = datetime(int(year), _MONTHS.index(mon.lower()) + 1, int(day), int(hh),
                                 int(mm), int(ss or 0))
            except ValueError:
                naive = None
            if naive is not None:
                if zone and zone[0] in "+-":
                    sign = 1 if zone[0] == "+" else -1
                    off = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])) * sign
                    return naive.replace(tzinfo=timezone(off))
                return naive.replace(tzinfo=ctx.tz)
        ctx.problem(label, line, f"unrecognised date {raw!r:.50}; the record has no date")
        return None


def _ids(value: str) -> list[str]:
    found = _MSGID.findall(value)
    if not found and value.strip() and " " not in value.strip():
        found = [value.strip()]
    return found


def _labels(value: str) -> list[str]:
    if not value:
        return []
    try:
        row = next(csv.reader([value], skipinitialspace=True))
    except (csv.Error, StopIteration):
        row = value.split(",")
    return [v.strip() for v in row if v.strip()]


def _decode(part: Message) -> str:
    try:
        payload = part.get_payload(decode=True)
    except Exception:  # noqa: BLE001
        payload = None
    if not isinstance(payload, bytes):
        raw = part.get_payload()
        return raw if isinstance(raw, str) else ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:
        return payload.decode("utf-8", errors="replace")


def _attachments(msg: Message) -> list[str]:
    names = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() == "text" and \
                part.get_content_disposition() != "attachment":
            continue
        try:
            name = part.get_filename()
        except Exception:  # noqa: BLE001 - malformed parameter
            name = None
        if name:
            names.append(str(name))
    return names


def _summary(msg: Message) -> str | None:
    plain = rich = None
    for part in msg.walk():
        if part.is_multipart():
            continue
        if part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if ctype == "text/plain" and plain is None:
            plain = _decode(part)
        elif ctype == "text/html" and rich is None:
            rich = _decode(part)
    text = plain
    if text is None and rich is not None:
        text = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", rich)
        text = re.sub(r"(?i)<br\s*/?>|</p>|</div>", "\n", text)
        text = html.unescape(re.sub(r"<[^>]+>", "", text))
    if text is None:
        return None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    for line in lines:
        if re.match(r"^-- ?$", line):
            break  # signature
        if line.lstrip().startswith(">"):
            if kept and _WROTE.match(kept[-1].strip()):
                kept.pop()
            continue
        kept.append(line.rstrip())
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    if len(body) > SUMMARY_CHARS:
        cut = body.rfind(" ", 0, SUMMARY_CHARS)
        body = body[:cut if cut > SUMMARY_CHARS // 2 else SUMMARY_CHARS].rstrip() + " …"
    return body or None


def _ordered(record: dict[str, Any]) -> dict[str, Any]:
    keys = ["id", "date", "from", "to", "subject", "summary", "tags", "thread", "in_reply_to",
            "cc", "from_address", "attachments"]
    out = {k: record[k] for k in keys if k in record and record[k] is not None}
    return out

"""Telegram Desktop JSON export (``result.json``) -> ``data/telegram/<chat>.jsonl``.

Handles a single-chat export (``{name, type, id, messages}``) and a full-account export
(``chats.list`` and ``left_chats.list``). One line per message: ``{"date", "from", "text", "id",
"from_id"?, "reply_to"?, "service"?, "media"?, "forwarded_from"?, "tz"}``. ``date`` is
``date_unixtime`` when present (exact), else the export's zone-less ``date`` placed in the
configured local zone; both are written as ISO with offset and ``tz`` records the zone.
Text given as an entity list is flattened (``text_link`` keeps its URL: ``label (url)``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from ._util import (
    ImportFailed,
    LineFinder,
    decode_text,
    from_epoch,
    iso,
    local,
    parse_json,
    slugify,
)
from .base import Importer
from .context import ImportContext


class TelegramImporter(Importer):
    kind = "telegram"
    description = "Telegram Desktop result.json (one chat or a full account) -> data/telegram/"

    def parse(self, ctx: ImportContext) -> None:
        path = ctx.source
        tree = ctx.tree(path)
        name = tree.names[0] if tree.mode == "file" else next(
            (n for n in tree.names if n.rsplit("/", 1)[-1] == "result.json"), None)
        if name is None and tree.mode == "dir":
            raise ImportFailed(f"{path}: no result.json in this folder (export the chat "
                               "history from Telegram Desktop as JSON)")
        if name is None:
            raise ImportFailed(f"{path}: no result.json in this archive")
        label = tree.label(name)
        data = tree.read(name, required=True)
        assert data is not None
        text, _ = decode_text(data)
        try:
            doc = parse_json(text)
        except ValueError as exc:
            raise ImportFailed(f"{label}: not JSON ({exc}); a Telegram export is result.json"
                               ) from exc
        if not isinstance(doc, dict):
            raise ImportFailed(f"{label}: not a Telegram export (top level is not an object)")
        chats = self._chats(doc)
        if chats is None:
            raise ImportFailed(f"{label}: not a Telegram export (no 'messages' and no "
                               "'chats' list)")
        owner = None
        info = doc.get("personal_information")
        if isinstance(info, dict):
            owner = " ".join(str(info.get(k) or "").strip() for k in ("first_name", "last_name")
                             ).strip() or None
        finder = LineFinder(text)
        names = [self._chat_name(c) for c in chats]
        total = sum(len(c.get("messages") or []) for c in chats)
        done = 0
        for chat, chat_name in zip(chats, names, strict=True):
            base = slugify(chat_name, fallback=f"chat-{chat.get('id', 'unknown')}")
            if sum(1 for n in names if slugify(n) == slugify(chat_name)) > 1:
                base = f"{base}-{chat.get('id')}"
            records, senders = [], {}
            messages = chat.get("messages")
            if not isinstance(messages, list):
                ctx.problem(label, None, f"chat {chat_name!r}: 'messages' is not a list; skipped")
                continue
            for msg in messages:
                done += 1
                if done % 200 == 0 or done == total:
                    ctx.progress(done, total)
                if not isinstance(msg, dict):
                    ctx.problem(label, None, f"chat {chat_name!r}: a message is not an object")
                    continue
                line = finder.find(f'"id": {json.dumps(msg.get("id"))}')
                record = self._message(ctx, msg, label, line)
                if record is None:
                    continue
                records.append(record)
                if not record.get("service") and isinstance(msg.get("from_id"), str) \
                        and msg["from_id"].startswith("user"):
                    senders[record["from"]] = None
            ctx.progress(done, total)
            if records:
                ctx.messages(f"data/telegram/{base}.jsonl", records, ts_field="date",
                             sender_field="from", text_field="text")
            kind = chat.get("type")
            if kind == "personal_chat":
                # the other person is the chat's name; the owner is the other sender
                ctx.person(chat_name if chat_name in senders else None)
            elif kind != "saved_messages":
                for sender in senders:
                    if sender != owner:
                        ctx.person(sender)

    @staticmethod
    def _chats(doc: dict[str, Any]) -> list[dict[str, Any]] | None:
        if isinstance(doc.get("messages"), list):
            return [doc]
        out = []
        found = False
        for key in ("chats", "left_chats"):
            section = doc.get(key)
            if isinstance(section, dict) and isinstance(section.get("list"), list):
                found = True
                out.extend(c for c in section["list"] if isinstance(c, dict))
        return out if found else None

    @staticmethod
    def _chat_name(chat: dict[str, Any]) -> str:
        name = chat.get("name")
        if isinstance(name, str) and name.strip():
            return name.strip()
        if chat.get("type") == "saved_messages":
            return "Saved Messages"
        return f"chat-{chat.get('id', 'unknown')}"

    def _message(self, ctx: ImportContext, msg: dict[str, Any], label: str,
                 line: int | None) -> dict[str, Any] | None:
        dt = None
        unix = msg.get("date_unixtime")
        if unix is not None:
            try:
                dt = from_epoch(float(unix), ctx.tz)
            except (TypeError, ValueError):
                dt = None
        if dt is None:
            raw = msg.get("date")
            try:
                naive = datetime.fromisoformat(raw) if isinstance(raw, str) else None
            except ValueError:
                naive = None
            if naive is None:
                ctx.problem(label, line, f"message {msg.get('id')}: unrecognised date "
                            f"{raw!r:.40}; skipped")
                return None
            dt = naive.astimezone(ctx.tz) if naive.tzinfo else local(naive, ctx.tz)
        service = msg.get("type") == "service"
        if service:
            text = _service_text(msg)
            sender = msg.get("actor") or msg.get("actor_id") or "system"
        else:
            text = flatten(msg.get("text"))
            if text is None:
                ctx.problem(label, line, f"message {msg.get('id')}: 'text' is neither a "
                            "string nor an entity list; skipped")
                return None
            if not text.strip() and isinstance(msg.get("poll"), dict):
                text = _poll_text(msg["poll"])
            sender = msg.get("from") or msg.get("from_id") or "Deleted Account"
        if not text or not text.strip():
            ctx.skip("messages without text (media, stickers)")
            return None
        record: dict[str, Any] = {"date": iso(dt), "from": str(sender), "text": text,
                                  "id": msg.get("id")}
        if isinstance(msg.get("from_id"), str):
            record["from_id"] = msg["from_id"]
        if msg.get("reply_to_message_id") is not None:
            record["reply_to"] = msg["reply_to_message_id"]
        if service:
            record["service"] = True
        media = msg.get("media_type") or ("photo" if msg.get("photo") else None) or (
            "file" if msg.get("file") else None)
        if media:
            record["media"] = media
        if isinstance(msg.get("forwarded_from"), str):
            record["forwarded_from"] = msg["forwarded_from"]
        record["tz"] = ctx.tz_name
        return record


def flatten(value: Any) -> str | None:
    """Telegram text (a string or a list of strings and entities) as plain text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, list):
        return None
    parts = []
    for item in value:
        if isinstance(item, str):
            parts.append(item)
        elif isinstance(item, dict):
            text = item.get("text")
            text = text if isinstance(text, str) else ""
            href = item.get("href")
            if item.get("type") == "text_link" and isinstance(href, str) and href != text:
                core = text.rstrip()
                parts.append(f"{core} ({href}){text[len(core):]}" if core else href)
            else:
                parts.append(text)
        else:
            return None
    return "".join(parts)


def _poll_text(poll: dict[str, Any]) -> str:
    answers = [a.get("text") for a in poll.get("answers") or [] if isinstance(a, dict)]
    answers = [a for a in answers if isinstance(a, str)]
    q = poll.get("question") if isinstance(poll.get("question"), str) else "poll"
    return f"Poll: {q}" + (f" ({' / '.join(answers)})" if answers else "")


_ACTIONS = {
    "create_group": 'created the group "{title}"',
    "create_channel": 'created the channel "{title}"',
    "migrate_to_supergroup": "upgraded the group to a supergroup",
    "migrate_from_group": 'migrated from the group "{title}"',
    "invite_members": "added {members}",
    "remove_members": "removed {members}",
    "join_group_by_link": "joined the group via an invite link",
    "pin_message": "pinned a message",
    "edit_group_title": 'changed the group name to "{title}"',
    "edit_group_photo": "changed the group photo",
    "delete_group_photo": "removed the group photo",
    "phone_call": "phone call",
    "group_call": "started a group call",
    "score_in_game": "scored in a game",
    "clear_history": "cleared the history",
}


def _service_text(msg: dict[str, Any]) -> str:
    action = msg.get("action") if isinstance(msg.get("action"), str) else "service"
    template = _ACTIONS.get(action, action.replace("_", " "))
    members = msg.get("members")
    members = ", ".join(m for m in members if isinstance(m, str)) if isinstance(
        members, list) else ""
    text = template.format(title=msg.get("title") or "", members=members or "members")
    if action == "phone_call" and msg.get("duration_seconds"):
        text += f" ({msg['duration_seconds']} s)"
    extra = flatten(msg.get("text"))
    if extra and extra.strip():
        text += f": {extra.strip()}"
    return text

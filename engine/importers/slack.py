"""Slack workspace export (folder or zip) -> ``data/slack/<channel>.jsonl``.

Reads ``channels.json`` / ``groups.json`` / ``mpims.json`` / ``dms.json`` (names), ``users.json``
(people) and the day files ``<channel>/<YYYY-MM-DD>.json``. One line per message:
``{"ts", "user", "text", "thread_ts", "id", "user_id", "subtype"?, "tz"}`` where ``ts`` is the
message time in the configured zone (ISO with offset), ``thread_ts`` the parent's time in the
same form (so the extractor's ``threads`` metadata groups a thread), and ``id`` Slack's own
``ts`` string, the stable key used to dedupe re-imports.
"""

from __future__ import annotations

import html
import re
from typing import Any

from ._util import (
    ImportFailed,
    LineFinder,
    decode_text,
    from_epoch,
    iso,
    parse_json,
    slugify,
)
from .base import Importer
from .context import ImportContext

_DAY_FILE = re.compile(r"^(?:(?P<prefix>.*)/)?(?P<channel>[^/]+)/(?P<day>\d{4}-\d{2}-\d{2})\.json$")
_ANGLE = re.compile(r"<([^<>\n]+)>")
_BOT_ADD = re.compile(r"services/(B[A-Z0-9]+)\|([^>]+)>")
#: subtypes that never carry a person's words and only add noise
_NOISE_SUBTYPES = {"bot_remove", "channel_archive", "channel_unarchive", "pinned_item",
                   "unpinned_item", "reminder_add", "tombstone", "huddle_thread",
                   "message_changed", "message_deleted", "message_replied"}

_JOIN_SUBTYPES = {"channel_join", "channel_leave", "group_join", "group_leave"}


class SlackImporter(Importer):
    kind = "slack"
    description = "Slack workspace export (folder or .zip) -> data/slack/<channel>.jsonl"

    def parse(self, ctx: ImportContext) -> None:
        tree = ctx.tree(allow_file=False)
        day_files = [(m, n) for n in tree.names if (m := _DAY_FILE.match(n))]
        if not day_files:
            raise ImportFailed(f"{ctx.source}: not a Slack export (no <channel>/<YYYY-MM-DD>.json "
                               "day files)")
        prefixes = {m["prefix"] or "" for m, _ in day_files}
        base = min(prefixes, key=len)
        pre = f"{base}/" if base else ""

        def meta(name: str) -> list[dict[str, Any]]:
            if f"{pre}{name}" not in tree.names:
                return []
            data = tree.read(f"{pre}{name}")
            if data is None:
                return []
            try:
                value = parse_json(decode_text(data)[0])
            except ValueError as exc:
                ctx.problem(tree.label(f"{pre}{name}"), getattr(exc, "lineno", None),
                            f"invalid JSON ({exc.args[0] if exc.args else exc}); ignored")
                return []
            if not isinstance(value, list):
                ctx.problem(tree.label(f"{pre}{name}"), None, "expected a JSON array; ignored")
                return []
            return [v for v in value if isinstance(v, dict)]

        users = {u["id"]: u for u in meta("users.json") if isinstance(u.get("id"), str)}
        channels: dict[str, str] = {}  # folder -> target name
        channel_ids: dict[str, str] = {}  # id -> name
        for fname in ("channels.json", "groups.json", "mpims.json"):
            for ch in meta(fname):
                if isinstance(ch.get("name"), str):
                    channels[ch["name"]] = ch["name"]
                    if isinstance(ch.get("id"), str):
                        channel_ids[ch["id"]] = ch["name"]
        for dm in meta("dms.json"):
            if isinstance(dm.get("id"), str):
                members = [_user_name(users.get(m), m) for m in dm.get("members") or []
                           if isinstance(m, str)]
                channels[dm["id"]] = "dm-" + "-".join(sorted(members)) if members else dm["id"]

        resolver = _Resolver(users, channel_ids)
        by_channel: dict[str, list[tuple[str, str]]] = {}
        for m, name in day_files:
            if (m["prefix"] or "") != base:
                continue
            by_channel.setdefault(m["channel"], []).append((m["day"], name))

        total = sum(len(v) for v in by_channel.values())
        done = 0
        authors: dict[str, dict[str, Any]] = {}
        guests: dict[str, str] = {}  # users missing from users.json, named by user_profile
        for folder in sorted(by_channel):
            messages: dict[str, tuple[float, dict[str, Any]]] = {}
            for _, name in sorted(by_channel[folder]):
                for ts, record, user_id in self._day(ctx, tree, name, resolver):
                    messages.setdefault(record["id"], (ts, record))
                    if user_id and user_id in users:
                        authors[user_id] = users[user_id]
                    elif user_id and user_id in resolver.profiles:
                        guests[user_id] = resolver.profiles[user_id]
                done += 1
                ctx.progress(done, total)
            if not messages:
                continue
            target = slugify(channels.get(folder, folder), fallback=folder)
            ordered = [r for _, r in sorted(messages.values(), key=lambda t: t[0])]
            ctx.messages(f"data/slack/{target}.jsonl", ordered, ts_field="ts",
                         sender_field="user", text_field="text")
        for user in authors.values():
            if user.get("is_bot") or user.get("id") == "USLACKBOT":
                continue
            name = _user_name(user, user.get("id", ""))
            profile = user.get("profile") if isinstance(user.get("profile"), dict) else {}
            ctx.person(name, [a for a in (profile.get("display_name"), user.get("name"),
                                          profile.get("real_name"), user.get("real_name"))
                              if isinstance(a, str) and a.strip() and a != name])
        for name in guests.values():
            ctx.person(name)

    def _day(self, ctx: ImportContext, tree, name: str, resolver: _Resolver):
        label = tree.label(name)
        data = tree.read(name)
        if data is None:
            return
        text, how = decode_text(data)
        if how:
            ctx.problem(label, None, how)
        try:
            day = parse_json(text)
        except ValueError as exc:
            ctx.problem(label, getattr(exc, "lineno", None),
                        f"invalid JSON ({getattr(exc, 'msg', exc)}); day file skipped")
            return
        if not isinstance(day, list):
            ctx.problem(label, None, "expected a JSON array of messages; day file skipped")
            return
        finder = LineFinder(text)
        for msg in day:
            if not isinstance(msg, dict):
                ctx.problem(label, None, "a message is not a JSON object; skipped")
                continue
            raw_ts = msg.get("ts")
            line = finder.find(f'"{raw_ts}"') if raw_ts is not None else None
            if msg.get("subtype") == "bot_add" and isinstance(msg.get("text"), str):
                for bot_id, bot_name in _BOT_ADD.findall(msg["text"]):
                    resolver.bots.setdefault(bot_id, bot_name)
            try:
                ts = float(raw_ts)
            except (TypeError, ValueError):
                ctx.problem(label, line, f"message without a valid 'ts' ({raw_ts!r:.40}); "
                            "skipped")
                continue
            if (msg.get("type", "message") != "message" or msg.get("hidden")
                    or msg.get("subtype") in _NOISE_SUBTYPES):
                ctx.skip("system events")
                continue
            body = resolver.text(msg)
            if not body:
                ctx.skip("messages without text (files, attachments)")
                continue
            dt = from_epoch(ts, ctx.tz)
            if dt is None:
                ctx.problem(label, line, f"'ts' out of range ({raw_ts}); skipped")
                continue
            user_id = msg.get("user") if isinstance(msg.get("user"), str) else None
            sender = resolver.sender(msg)
            if msg.get("subtype") in _JOIN_SUBTYPES and body.startswith(f"@{sender} "):
                body = body[1:]  # "@Maya has joined the channel" -> "Maya has joined …"
            record: dict[str, Any] = {
                "ts": iso(dt),
                "user": sender,
                "text": body,
                "thread_ts": None,
                "id": str(raw_ts),
            }
            thread = msg.get("thread_ts")
            if thread is not None:
                try:
                    parent = from_epoch(float(thread), ctx.tz)
                except (TypeError, ValueError):
                    parent = None
                    ctx.problem(label, line, f"invalid thread_ts {thread!r:.40}; ignored")
                if parent is not None:
                    record["thread_ts"] = iso(parent)
            if user_id:
                record["user_id"] = user_id
            elif isinstance(msg.get("bot_id"), str):
                record["bot_id"] = msg["bot_id"]
            if isinstance(msg.get("subtype"), str):
                record["subtype"] = msg["subtype"]
            record["tz"] = ctx.tz_name
            yield ts, record, user_id


def _user_name(user: dict[str, Any] | None, fallback: str) -> str:
    if not isinstance(user, dict):
        return fallback
    profile = user.get("profile") if isinstance(user.get("profile"), dict) else {}
    for value in (profile.get("real_name"), user.get("real_name"), profile.get("display_name"),
                  user.get("name")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return fallback


class _Resolver:
    """Slack mrkdwn to plain text: mentions and channels resolved, links unwrapped."""

    def __init__(self, users: dict[str, dict[str, Any]], channels: dict[str, str]) -> None:
        self.users = users
        self.channels = channels
        self.bots: dict[str, str] = {}
        self.profiles: dict[str, str] = {}

    def user(self, user_id: str, label: str | None = None) -> str:
        if user_id in self.users:
            return _user_name(self.users[user_id], label or user_id)
        return self.profiles.get(user_id) or label or user_id

    def sender(self, msg: dict[str, Any]) -> str:
        profile = msg.get("user_profile")
        user_id = msg.get("user")
        if isinstance(user_id, str) and user_id in self.users:
            return self.user(user_id)
        if isinstance(profile, dict):
            for key in ("real_name", "display_name", "name"):
                if isinstance(profile.get(key), str) and profile[key].strip():
                    if isinstance(user_id, str):
                        self.profiles[user_id] = profile[key].strip()
                    return profile[key].strip()
        for key in ("username", "user_name"):
            if isinstance(msg.get(key), str) and msg[key].strip():
                return msg[key].strip()
        bot = msg.get("bot_profile")
        if isinstance(bot, dict) and isinstance(bot.get("name"), str):
            return bot["name"]
        bot_id = msg.get("bot_id")
        if isinstance(bot_id, str):
            return self.bots.get(bot_id, f"bot {bot_id}")
        return self.user(user_id) if isinstance(user_id, str) else "unknown"

    def text(self, msg: dict[str, Any]) -> str:
        parts: list[str] = []
        if isinstance(msg.get("text"), str) and msg["text"].strip():
            parts.append(msg["text"])
        else:
            for att in msg.get("attachments") or []:
                if not isinstance(att, dict):
                    continue
                bits = [att.get(k) for k in ("pretext", "title", "text")]
                bits = [b for b in bits if isinstance(b, str) and b.strip()]
                if not bits and isinstance(att.get("fallback"), str):
                    bits = [att["fallback"]]
                parts.extend(bits)
            if not parts:
                files = [f.get("title") or f.get("name") for f in msg.get("files") or []
                         if isinstance(f, dict)]
                files = [f for f in files if isinstance(f, str) and f.strip()]
                if files:
                    parts.append("shared " + ", ".join(files))
        return "\n".join(self.mrkdwn(p).strip() for p in parts).strip()

    def mrkdwn(self, text: str) -> str:
        def repl(m: re.Match[str]) -> str:
            inner = m.group(1)
            target, _, label = inner.partition("|")
            if target.startswith("@"):
                return "@" + self.user(target[1:], label or None)
            if target.startswith("#"):
                return "#" + (label or self.channels.get(target[1:], target[1:]))
            if target.startswith("!"):
                cmd = target[1:]
                if cmd.startswith("subteam^"):
                    return label or "@group"
                if cmd.startswith("date^"):
                    return label or cmd
                return "@" + (label.lstrip("@") if label else cmd)
            url = html.unescape(target)
            if not label:
                return url.removeprefix("mailto:")
            label = html.unescape(label)
            bare = re.sub(r"^(?:https?://|mailto:)", "", url).rstrip("/")
            if label.rstrip("/") in (url.rstrip("/"), bare):
                return label
            return f"{label} ({url})"

        return html.unescape(_ANGLE.sub(repl, text))

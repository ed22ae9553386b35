"""What the importer tests share: a file written with its folders, and a Slack export of a few days on one account."""

from __future__ import annotations

import json
from pathlib import Path


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


DAY1 = [
    {"type": "message", "subtype": "channel_join", "user": "U1",
     "text": "<@U1> has joined the channel", "ts": "1773479400.000100"},
    {"type": "message", "user": "U1", "text": "Did the route import finish? <!here>",
     "ts": "1773479525.000200", "thread_ts": "1773479525.000200", "reply_count": 2},
    {"type": "message", "user": "U2", "ts": "1773479680.000300",
     "thread_ts": "1773479525.000200",
     "text": "<@U1> yes, see <#C2|random> and <https://example.com/run/7|run 7> &amp; "
             "<mailto:sam@example.com|sam@example.com>"},
    {"type": "message", "subtype": "bot_message", "bot_id": "B9", "username": "CI",
     "text": "", "ts": "1773479700.000400",
     "attachments": [{"fallback": "Build passed", "pretext": "Build #12", "text": "passed"}]},
    {"type": "message", "subtype": "file_share", "user": "U2", "text": "",
     "files": [{"id": "F1", "title": "elevation.csv"}], "ts": "1773479800.000500"},
]


USERS = [
    {"id": "U1", "name": "maya", "real_name": "Maya Chen",
     "profile": {"real_name": "Maya Chen", "display_name": "maya.c"}},
    {"id": "U2", "name": "sam", "profile": {"real_name": "Sam Ortiz", "display_name": "sam"}},
    {"id": "UB", "name": "deploybot", "is_bot": True, "profile": {"real_name": "Deploy Bot"}},
]

CHANNELS = [{"id": "C1", "name": "general", "created": "1773479000"},
            {"id": "C2", "name": "random", "created": 1773479000}]

DAY2 = [
    {"type": "message", "user": "U1", "text": "Thanks! Elevation still looks off.",
     "ts": "1773566000.000100", "thread_ts": "1773479525.000200"},
    {"type": "message", "user": "U3", "text": "hello from a guest",
     "user_profile": {"real_name": "Guest Person"}, "ts": "1773566100.000200"},
]


def slack_export(folder: Path, days: dict[str, list[dict]] | None = None) -> Path:
    write(folder / "users.json", json.dumps(USERS))
    write(folder / "channels.json", json.dumps(CHANNELS))
    write(folder / "dms.json", json.dumps([{"id": "D1", "members": ["U1", "U2"]}]))
    days = days if days is not None else {"general/2026-03-14.json": DAY1,
                                          "general/2026-03-15.json": DAY2}
    for rel, msgs in days.items():
        write(folder / rel, json.dumps(msgs, indent=4))
    return folder


ACCOUNT = {
    "about": "Here is the data you requested.",
    "personal_information": {"user_id": 1, "first_name": "Alex", "last_name": "Kim"},
    "chats": {"about": "chats", "list": [
        {"name": "Maya Chen", "type": "personal_chat", "id": 11, "messages": [
            {"id": 1, "type": "message", "date": "2026-03-14T09:12:05",
             "date_unixtime": "1773479525", "from": "Maya Chen", "from_id": "user2",
             "text": "Climbing Saturday?", "text_entities": []},
            {"id": 2, "type": "message", "date": "2026-03-14T09:13:00",
             "from": "Alex Kim", "from_id": "user1", "reply_to_message_id": 1,
             "text": ["yes! route: ", {"type": "text_link", "text": "Tunitas",
                                       "href": "https://maps.example/t"}, " ",
                      {"type": "bold", "text": "8am"}]},
            {"id": 3, "type": "message", "date": "2026-03-14T09:14:00", "from": "Maya Chen",
             "from_id": "user2", "photo": "photos/p.jpg", "text": ""},
        ]},
        {"name": "Family", "type": "private_group", "id": 12, "messages": [
            {"id": 1, "type": "service", "date": "2026-03-01T08:00:00", "actor": "Alex Kim",
             "actor_id": "user1", "action": "create_group", "title": "Family",
             "members": ["Mom", "Dad"], "text": ""},
            {"id": 2, "type": "service", "date": "2026-03-01T08:00:01", "actor": "Alex Kim",
             "actor_id": "user1", "action": "invite_members", "members": ["Mom", "Dad"],
             "text": ""},
            {"id": 3, "type": "message", "date": "14.03.2026 18:02", "from": "Mom",
             "from_id": "user3", "text": "Dinner Sunday at 6?"},
            {"id": 4, "type": "message", "date": "2026-03-14T18:02:00", "from": "Mom",
             "from_id": "user3", "text": "Dinner Sunday at 6?"},
            {"id": 5, "type": "message", "date": "2026-03-14T18:05:00", "from": "Dad",
             "from_id": "user4", "text": {"oops": 1}},
        ]},
    ]},
}

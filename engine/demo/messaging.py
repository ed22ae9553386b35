"""The demo's chat logs (slack, telegram, whatsapp, signal) and their helpers."""

from __future__ import annotations

import math
from datetime import timedelta
from random import Random

from .cast import FIRST_NAMES, LAST_NAMES
from .chat_text import (
    CHAT,
    CHAT_TAILS,
    CORE_SLACK_CHANNELS,
    DOMAIN_TAILS,
    PREFIX_DOMAIN,
    SIGNAL_THREADS,
    SLACK_PREFIXES,
    SLACK_TOPICS,
    TELEGRAM_CHATS,
    WHATSAPP_CHATS,
)
from .facts import _MARKUP_TEXT, DEFAULT_WINDOWS, DEMO_FACTS, MESSAGING_SHARES, WINDOW
from .helpers import _EPOCH, _HMS, _apportion, _esc, _q, _slug
from .word_banks import fill


class _Messaging:
    """Writers of the chat logs; mixed into the generator (they use its state)."""

    # -- messaging ----------------------------------------------------------------------------

    def messaging(self) -> None:
        other = sum(v for k, v in self.chunks.items() if k not in MESSAGING_SHARES)
        if self.requested is None:
            windows = dict(DEFAULT_WINDOWS)
        else:
            m = max(3, self.requested - other)
            share = sum(MESSAGING_SHARES.values())
            slack = round(m * MESSAGING_SHARES["slack"] / share)
            tg = round(m * MESSAGING_SHARES["telegram"] / share)
            wa = round(m * MESSAGING_SHARES["whatsapp"] / share)
            windows = {"slack": max(1, slack), "telegram": max(1, tg), "whatsapp": max(1, wa),
                       "signal": max(1, m - slack - tg - wa)}
        self._total = self._done + sum(windows.values())
        total_msgs = sum(windows.values()) * WINDOW
        pool_size = max(1500, min(25_000, total_msgs // 200))
        pools = _Pools(f"{self.seed}/pool", pool_size)
        coworkers = _coworkers(self.rng("coworkers"))
        markup_day = (self.ago(DEMO_FACTS["markup_days_before_today"]) - self.plan.start).days
        self.facts["markup_date"] = self.days[markup_day].iso

        # slack
        rng = self.rng("slack")
        chans = _slack_channels(rng, windows["slack"], big=self.requested is not None)
        sizes = _apportion(windows["slack"], [1.0 / (i + 1) for i in range(len(chans))])
        for (name, domain, start_frac), w in zip(chans, sizes, strict=True):
            members = _slack_members(rng, name, domain, coworkers)
            specials = {}
            if name == "ops-alerts":
                specials[markup_day] = ("Tomás Herrera", _MARKUP_TEXT)
            start = 0 if specials else int(start_frac * self.plan.days)
            self._chat(f"data/slack/{name}.jsonl", "slack", w, members, pools, domain, rng,
                       start, specials)
        # telegram
        rng = self.rng("telegram")
        chats = list(TELEGRAM_CHATS)
        tweights = [1.0, 0.6, 0.5, 0.4, 0.4, 0.25, 0.2, 0.15]
        if self.requested is not None and windows["telegram"] > 2000:
            extra = min(40, (windows["telegram"] - 2000) // 3000 + 1)
            for j in range(extra):
                nm = coworkers[-1 - j]
                chats.append((_slug(nm), rng.choice(["friends", "climbing", "social"]), [nm]))
                tweights.append(0.12)
        sizes = _apportion(windows["telegram"], tweights[:len(chats)])
        for (name, domain, people), w in zip(chats, sizes, strict=True):
            members = [("Sam Rivera", 1.0)] + [(p, 1.0) for p in people]
            self._chat(f"data/telegram/{name}.jsonl", "telegram", w, members, pools, domain,
                       rng, 0, {})
        # whatsapp: the importer's layout, wall-clock times with the day's offset
        rng = self.rng("whatsapp")
        sizes = _apportion(windows["whatsapp"], [0.6, 0.4][:len(WHATSAPP_CHATS)])
        for (name, domain, people), w in zip(WHATSAPP_CHATS, sizes, strict=True):
            members = [("Sam Rivera", 1.0)] + [(p, 1.0) for p in people]
            self._chat(f"data/whatsapp/{name}.jsonl", "whatsapp", w, members,
                       pools, domain, rng, 0, {})
        # signal
        rng = self.rng("signal")
        sizes = _apportion(windows["signal"], [0.65, 0.35][:len(SIGNAL_THREADS)])
        for (name, domain, people), w in zip(SIGNAL_THREADS, sizes, strict=True):
            members = [("Sam Rivera", 1.0)] + [(p, 1.2) for p in people]
            self._chat(f"data/signal/{name}.jsonl", "signal", w, members, pools, domain, rng,
                       0, {})

    def _chat(self, rel: str, stype: str, windows: int, members: list[tuple[str, float]],
              pools: _Pools, domain: str, rng: Random, start: int,
              specials: dict[int, tuple[str, str]]) -> None:
        """Write one messaging log of ``windows`` windows, streaming."""
        n = windows * WINDOW - rng.randint(0, WINDOW - 1)
        days = self.days[start:]
        if stype == "slack":
            lo, hi = (0, 86399) if domain == "ops" else (8 * 3600 + 1800, 19 * 3600)
            weekend_w = 0.5 if domain == "ops" else 0.1
        elif stype in ("telegram", "whatsapp"):
            lo, hi, weekend_w = 7 * 3600, 23 * 3600 + 1800, 1.3
        else:
            lo, hi, weekend_w = 8 * 3600, 22 * 3600, 1.2
        span = hi - lo
        weights = []
        r = rng.random
        for d in days:
            x = (weekend_w if d.weekend else 1.0) * (0.4 + r())
            if r() < 0.04:
                x *= 3.0
            weights.append(x)
        sp = {k - start: v for k, v in specials.items()}
        for k in sp:
            weights[k] = max(weights[k], 2.0)
        counts = _apportion(n, weights, minimum=0)
        for k in sp:
            if counts[k] == 0:
                j = max(range(len(counts)), key=counts.__getitem__)
                counts[j] -= 1
                counts[k] += 1

        bag: list[str] = []
        for name, wt in members:
            bag.extend([_q(name)] * max(1, round(wt * 4)))
        nb = len(bag)
        pool = pools.get(domain)
        npool = len(pool)
        tails = pools.tails(domain)
        ntails = len(tails)
        tail_p = 0.25
        switch_p = 0.55 if len(members) <= 2 else 0.8
        thread_p = 0.12 if stype == "slack" else 0.0
        spk = bag[0]
        hms = _HMS
        utc_dates: dict[int, str] = {}
        p = self._path(rel)
        buf: list[str] = []
        written = ticked = 0
        with p.open("w", encoding="utf-8", newline="\n") as fh:
            for di, c in enumerate(counts):
                if not c:
                    continue
                d = days[di]
                secs = sorted([lo + int(r() * span) for _ in range(c)])
                special = sp.get(di)
                recent: list[str] = []
                for sec in secs:
                    if r() < switch_p:
                        spk = bag[int(r() * nb)]
                    text = pool[int(r() * npool)]
                    if r() < tail_p:
                        text = text + " " + tails[int(r() * ntails)]
                    who = spk
                    if special is not None:
                        who, text = _q(special[0]), _esc(special[1])
                        special = None
                    if stype == "slack":
                        ts = d.iso + "T" + hms[sec] + d.off
                        if recent and r() < thread_p:
                            thr = '"' + recent[-1 - int(r() * min(len(recent), 5))] + '"'
                        else:
                            thr = "null"
                            recent.append(ts)
                        buf.append('{"ts": "' + ts + '", "user": ' + who + ', "text": "' + text
                                   + '", "thread_ts": ' + thr + "}\n")
                    elif stype == "whatsapp":
                        buf.append('{"date": "' + d.iso + "T" + hms[sec] + d.off + '", "from": '
                                   + who + ', "text": "' + text + '"}\n')
                    elif stype == "telegram":
                        u = d.utc0 + sec
                        ud = u // 86400
                        ds = utc_dates.get(ud)
                        if ds is None:
                            ds = utc_dates[ud] = (_EPOCH + timedelta(days=ud)).isoformat()
                        buf.append('{"date": "' + ds + "T" + hms[u % 86400]
                                   + '+00:00", "from": ' + who + ', "text": "' + text + '"}\n')
                    else:
                        ms = (d.utc0 + sec) * 1000 + int(r() * 1000)
                        buf.append('{"timestamp": ' + str(ms) + ', "sender": ' + who
                                   + ', "body": "' + text + '"}\n')
                if len(buf) >= 4096:
                    fh.write("".join(buf))
                    written += len(buf)
                    buf.clear()
                    self._tick(written // WINDOW - ticked)
                    ticked = written // WINDOW
            if buf:
                fh.write("".join(buf))
        self._account(stype, p, math.ceil(n / WINDOW), ticked)


class _Pools:
    """Pre-filled, pre-escaped message texts per conversation domain (built lazily)."""

    def __init__(self, seed: str, size: int) -> None:
        self.seed = seed
        self.size = size
        self._pools: dict[str, list[str]] = {}
        self._tails: dict[str, list[str]] = {}

    def get(self, domain: str) -> list[str]:
        if domain not in self._pools:
            templates = CHAT[domain]
            rng = Random(f"{self.seed}/{domain}")
            self._pools[domain] = [_esc(fill(templates[int(rng.random() * len(templates))], rng))
                                   for _ in range(self.size)]
        return self._pools[domain]

    def tails(self, domain: str) -> list[str]:
        kind = DOMAIN_TAILS[domain]
        if kind not in self._tails:
            rng = Random(f"tails/{kind}")
            self._tails[kind] = [_esc(fill(t, rng)) for t in CHAT_TAILS[kind] for _ in range(3)]
        return self._tails[kind]


def _coworkers(rng: Random) -> list[str]:
    names = [f"{f} {last}" for f in FIRST_NAMES for last in LAST_NAMES]
    return rng.sample(names, 120)


def _slack_channels(rng: Random, windows: int, big: bool) -> list[tuple[str, str, float]]:
    """(name, domain, start fraction of the history) per channel, largest first."""
    chans = [(n, dom, 0.0) for n, dom in CORE_SLACK_CHANNELS]
    if not big:
        return chans
    count = max(len(chans), min(400, 8 + windows // 1000))
    combos = [(p, t) for p in SLACK_PREFIXES for t in SLACK_TOPICS]
    rng.shuffle(combos)
    taken = {n for n, _, _ in chans}
    for prefix, topic in combos:
        if len(chans) >= count:
            break
        name = f"{prefix}-{topic}"
        if name in taken:
            continue
        taken.add(name)
        dom = PREFIX_DOMAIN_OVERRIDES.get(topic) or PREFIX_DOMAIN[prefix]
        chans.append((name, dom, rng.choice([0.0, 0.0, 0.0, rng.uniform(0.05, 0.7)])))
    return chans


PREFIX_DOMAIN_OVERRIDES = {"bikes": "social", "runs": "social", "hikes": "climbing",
                           "books": "social", "food": "social", "music": "social",
                           "pets": "social", "parents": "social", "photos": "social",
                           "gardening": "social", "games": "social"}


def _slack_members(rng: Random, name: str, domain: str,
                   coworkers: list[str]) -> list[tuple[str, float]]:
    cast = {"eng": [("Sam Rivera", 3.0), ("Tomás Herrera", 3.0), ("Kenji Watanabe", 2.0),
                    ("Priya Natarajan", 1.0)],
            "ops": [("Fernhill Alerts", 3.0), ("Sam Rivera", 1.5), ("Tomás Herrera", 1.5),
                    ("Kenji Watanabe", 1.0)],
            "product": [("Grace O'Neill", 3.0), ("Sam Rivera", 1.5), ("Priya Natarajan", 1.0),
                        ("Tomás Herrera", 1.0)],
            "social": [("Sam Rivera", 1.0), ("Grace O'Neill", 1.0), ("Kenji Watanabe", 1.0),
                       ("Tomás Herrera", 1.0)],
            "climbing": [("Sam Rivera", 2.0), ("Kenji Watanabe", 2.0)]}[domain]
    core = name in {n for n, _ in CORE_SLACK_CHANNELS}
    if not core:
        cast = [m for m in cast if rng.random() < 0.5 or m[0] == "Sam Rivera"]
    others = rng.sample(coworkers, rng.randint(3, 9) if core else rng.randint(3, 7))
    return cast + [(o, rng.choice([0.5, 1.0, 1.5])) for o in others]

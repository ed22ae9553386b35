"""The demo's people, entities, journal, events, email, health and identity files."""

from __future__ import annotations

from datetime import date, timedelta
from random import Random
from typing import Any

from .cast import PEOPLE
from .facts import _PARAPHRASE_TARGET, _RARE_NOUN_TEXT, DEMO_FACTS
from .helpers import _apportion, _bullets, _fill_same, _Md, _protocol_days, _slug
from .record_text import (
    CHECKIN_NOTES,
    EMAIL_CATALOGS,
    EVENTS,
    EXPERIMENTS,
    JOURNAL,
    JOURNAL_CLOSERS,
    JOURNAL_LOCATIONS,
    OBSERVATIONS,
    QUOTES,
    STORIES,
)
from .spoken_text import INTERVIEW_TOPICS, PODCAST_EPISODES
from .tables import (
    _CODENAMES,
    _ENTITY_PROJECTS,
    _ENTITY_RECENT,
    _ENTITY_TOPICS,
    _JOURNAL_WEIGHTS,
    _PODCAST_REACTIONS,
    _PROJECT_STATUS,
    _QUOTE_CONTEXTS,
    _RISKS,
    _STORY_CODAS,
    _TOPIC_RELATED,
    _TOPIC_WHY,
)
from .word_banks import BANKS, fill


class _Records:
    """Writers of the small sources; mixed into the generator (they use its state)."""

    # -- people -----------------------------------------------------------------------------

    def milestone_date(self, rng: Random, month_offset: int) -> date:
        d = self.year_start + timedelta(days=int(30.4 * month_offset) + rng.randint(0, 20))
        return min(d, self.today)

    def people(self) -> None:
        rng = self.rng("people")
        out = []
        self.milestones: dict[str, list[tuple[date, str]]] = {}
        for p in PEOPLE:
            ms = [(self.milestone_date(rng, off), text) for off, text in p["milestones"]]
            self.milestones[p["name"]] = ms
            out.append({
                "name": p["name"], "aliases": list(p["aliases"]),
                "relationship": p["relationship"], "context": p["context"], "notes": p["notes"],
                "interests": list(p["interests"]),
                "milestones": [{"date": d.isoformat(), "event": e} for d, e in ms],
            })
        self.write_json("profile/relationships.json", None, {"people": out}, 0)

    def entities(self) -> None:
        rng = self.rng("entities")
        for p in PEOPLE:
            ms = self.milestones[p["name"]]
            updated = max(d for d, _ in ms) if ms else self.today
            md = _Md({"type": "person", "name": p["name"], "aliases": p["aliases"],
                      "relationship": p["relationship"], "date": updated})
            md.section(1, p["name"], p["context"])
            md.section(2, "Notes", p["notes"])
            md.section(2, "Interests", _bullets(p["interests"]))
            md.section(2, "Timeline", _bullets(f"{d.isoformat()}: {e}" for d, e in ms))
            recent = [fill(t.replace("{name}", p["aliases"][0]), rng)
                      for t in rng.sample(_ENTITY_RECENT[p["circle"]], 2)]
            md.section(2, "Recent", _bullets(recent))
            self.write_md(f"memory/entities/people/{p['slug']}.md", "entity_file", md)
        n_extra = self.plan.items["entity_extra"]
        for i in range(n_extra):
            kind = "projects" if i % 2 == 0 else "topics"
            base = _ENTITY_PROJECTS if kind == "projects" else _ENTITY_TOPICS
            k = i // 2
            name, intro = base[k % len(base)]
            if k >= len(base):
                name = f"{name} {_CODENAMES[(k // len(base)) % len(_CODENAMES)]}"
                if k >= len(base) * (1 + len(_CODENAMES)):
                    name += f" {k}"
            d = self.dates(rng, 1)[0]
            md = _Md({"type": kind[:-1], "name": name, "date": d,
                      "tags": [_slug(name).split("-")[0], kind[:-1]]})
            md.section(1, name, intro)
            if kind == "projects":
                md.section(2, "Status", fill(rng.choice(_PROJECT_STATUS), rng))
                md.section(2, "People", _bullets(rng.sample(
                    ["Priya Natarajan (sponsor)", "Tomás Herrera (tech lead)",
                     "Kenji Watanabe", "Grace O'Neill (product)", "Sam Rivera (owner)"], 3)))
                md.section(2, "Risks", _bullets(fill(t, rng) for t in rng.sample(_RISKS, 2)))
            else:
                md.section(2, "Why it matters", fill(rng.choice(_TOPIC_WHY), rng))
                md.section(2, "Related", _bullets(fill(t, rng) for t in rng.sample(
                    _TOPIC_RELATED, 3)))
            self.write_md(f"memory/entities/{kind}/{_slug(name)}.md", "entity_file", md)

    # -- journal ------------------------------------------------------------------------------

    def journal(self) -> None:
        rng = self.rng("journal")
        topics = list(JOURNAL)
        weights = [_JOURNAL_WEIGHTS[t] for t in topics]
        rare_day = self.ago(DEMO_FACTS["rare_noun_days_before_today"])
        para_day = self.ago(DEMO_FACTS["paraphrase_days_before_today"])
        entries: list[tuple[date, int, dict[str, Any]]] = []
        for i, d in enumerate(self.dates(rng, self.plan.items["journal"])):
            topic = rng.choices(topics, weights)[0]
            entries.append((d, i, self._journal_entry(rng, d, topic)))
        entries.append((rare_day, -2, {
            "date": rare_day, "title": "Maya's birthday", "text": _RARE_NOUN_TEXT,
            "tags": ["partner", "birthday", "food"], "location": "San Francisco, CA"}))
        entries.append((para_day, -1, {
            "date": para_day, "title": DEMO_FACTS["paraphrase_title"],
            "text": _PARAPHRASE_TARGET, "tags": ["work", "health"], "location": "Oakland, CA"}))
        entries.sort(key=lambda e: (e[0], e[1]))
        by_year: dict[int, list[dict[str, Any]]] = {}
        seen: dict[str, int] = {}
        for d, _, e in entries:
            key = d.isoformat()
            seen[key] = seen.get(key, 0) + 1
            rid = f"j-{key}" + (f"-{seen[key]}" if seen[key] > 1 else "")
            rec = {"id": rid, "date": key, "title": e["title"], "text": e["text"],
                   "tags": e["tags"], "location": e["location"]}
            by_year.setdefault(d.year, []).append(rec)
            if e["text"] is _RARE_NOUN_TEXT:
                self.facts.update(rare_noun_file=f"data/journal/{d.year}.jsonl",
                                  rare_noun_date=key, rare_noun_id=rid)
            elif e["text"] is _PARAPHRASE_TARGET:
                self.facts.update(paraphrase_file=f"data/journal/{d.year}.jsonl",
                                  paraphrase_date=key, paraphrase_id=rid)
        for year in sorted(by_year):
            self.write_jsonl(f"data/journal/{year}.jsonl", "journal", by_year[year])

    def _journal_entry(self, rng: Random, d: date, topic: str) -> dict[str, Any]:
        bank = JOURNAL[topic]
        k = min(len(bank["lines"]), rng.randint(2, 4))
        lines = [fill(t, rng) for t in rng.sample(bank["lines"], k)]
        tags = [topic]
        if rng.random() < 0.35:
            other = rng.choice([t for t in JOURNAL if t != topic])
            lines.append(fill(rng.choice(JOURNAL[other]["lines"]), rng))
            tags.append(other)
        closer = fill(rng.choice(JOURNAL_CLOSERS), rng)
        if closer:
            lines.append(closer)
        loc = "Oakland, CA" if rng.random() < 0.7 else rng.choice(JOURNAL_LOCATIONS)
        return {"date": d, "title": rng.choice(bank["titles"]), "text": " ".join(lines),
                "tags": tags, "location": loc}

    # -- events and email ------------------------------------------------------------------------

    def events(self) -> None:
        rng = self.rng("events")
        recs = []
        for i, d in enumerate(self.dates(rng, self.plan.items["event"]), start=1):
            title, loc, people, desc = rng.choice(EVENTS)
            # one fill stream per event, restarted per field: title/location/text agree
            title, loc, desc = _fill_same(rng, title, loc, desc)
            recs.append({"id": f"ev-{i:05d}", "date": d.isoformat(), "title": title,
                         "location": loc, "people": ["Sam Rivera", *people],
                         "description": desc,
                         "photo_count": rng.randint(3, 140)})
        self.write_jsonl("data/photos/events.jsonl", "event", recs)

    def email(self) -> None:
        rng = self.rng("email")
        names = list(EMAIL_CATALOGS)
        weights = [0.45, 0.3, 0.1, 0.15]
        per = _apportion(self.plan.items["email_catalog"], weights)
        for name, k in zip(names, per, strict=True):
            to = ("Sam Rivera <sam@fernhillmaps.com>" if name == "work"
                  else "Sam Rivera <sam.rivera@example.com>")
            recs = []
            for i, d in enumerate(self.dates(rng, k, weekdays=name == "work"), start=1):
                sender, subject, summary, tags = rng.choice(EMAIL_CATALOGS[name])
                subject, summary = _fill_same(rng, subject, summary)
                recs.append({"id": f"em-{name}-{i:05d}", "date": d.isoformat(), "from": sender,
                             "to": to, "subject": subject, "summary": summary,
                             "tags": list(tags)})
            self.write_jsonl(f"data/email/catalog/{name}.jsonl", "email_catalog", recs)

    # -- health ---------------------------------------------------------------------------------

    def health(self) -> None:
        items = self.plan.items
        rng = self.rng("garmin")
        garmin_days = self.days[-items["garmin"]:]
        self.active_days: dict[date, str] = {}
        for day in garmin_days:
            rec = self._garmin(rng, day.d)
            self.write_json(f"data/health/garmin/{day.iso}.json", "garmin", rec, 1)

        rng = self.rng("cgm")
        slots = sorted(rng.sample(range(self.plan.days // 14), items["cgm_sensors"]))
        for slot in slots:
            for j in range(14):
                day = self.days[slot * 14 + j]
                self.write_json(f"data/health/cgm/{day.iso}.json", "cgm",
                                self._cgm(rng, day.d, first=j == 0, last=j == 13), 1)

        rng = self.rng("checkins")
        picks = sorted(rng.sample(range(self.plan.days), items["checkin"]))
        mood = 6.0
        recs = []
        for i in picks:
            mood = min(9.5, max(2.5, mood + rng.uniform(-1.2, 1.2) + (6.5 - mood) * 0.2))
            recs.append({"date": self.days[i].iso, "mood": round(mood),
                         "energy": max(1, min(10, round(mood + rng.uniform(-2, 1.5)))),
                         "sleep_quality": rng.randint(4, 9),
                         "notes": fill(rng.choice(CHECKIN_NOTES), rng)})
        self.write_jsonl("data/health/checkins.jsonl", "checkin", recs)

        rng = self.rng("experiments")
        recs = []
        starts = self.dates(rng, items["experiment"])
        for i, start in enumerate(starts, start=1):
            name, hyp, protocol, result, status = EXPERIMENTS[(i - 1) % len(EXPERIMENTS)]
            rnd = (i - 1) // len(EXPERIMENTS)
            if rnd:
                name = f"{name} (round {rnd + 1})"
            length = _protocol_days(protocol) or rng.choice([14, 21, 30])
            if status in ("active", "planned"):  # running now: started in the last weeks
                start = self.ago(rng.randint(3, 25))
            end = start + timedelta(days=length)
            if status in ("active", "planned") or end > self.today:
                status, result, end_s = "active", "", None
            else:
                end_s = end.isoformat()
            recs.append({"id": f"exp-{i:04d}", "name": name, "start": start.isoformat(),
                         "end": end_s, "hypothesis": hyp, "protocol": protocol,
                         "result": result, "status": status})
        recs.sort(key=lambda r: (r["start"], r["id"]))
        self.write_jsonl("data/health/experiments.jsonl", "experiment", recs)

    def _garmin(self, rng: Random, d: date) -> dict[str, Any]:
        wd = d.weekday()
        acts = []
        if wd in (1, 3) and rng.random() < 0.8:
            acts.append({"type": "indoor_climbing", "duration_min": rng.randint(70, 140),
                         "distance_km": 0.0, "avg_hr": rng.randint(105, 132)})
        if wd >= 5 and rng.random() < 0.55:
            km = round(rng.uniform(25, 95), 1)
            acts.append({"type": "cycling", "duration_min": int(km * rng.uniform(2.4, 3.2)),
                         "distance_km": km, "avg_hr": rng.randint(128, 152)})
        elif wd >= 5 and rng.random() < 0.25:
            acts.append({"type": "hiking", "duration_min": rng.randint(90, 240),
                         "distance_km": round(rng.uniform(6, 16), 1),
                         "avg_hr": rng.randint(100, 125)})
        if wd in (0, 4) and rng.random() < 0.35:
            km = round(rng.uniform(4, 11), 1)
            acts.append({"type": "running", "duration_min": int(km * rng.uniform(5.2, 6.4)),
                         "distance_km": km, "avg_hr": rng.randint(140, 160)})
        if rng.random() < 0.5:
            km = round(rng.uniform(1.5, 5), 1)
            acts.append({"type": "walking", "duration_min": int(km * 12), "distance_km": km,
                         "avg_hr": rng.randint(88, 105)})
        steps = rng.randint(4000, 9000) + sum(int(a["distance_km"] * 1300)
                                              for a in acts if a["type"] != "cycling")
        sleep = rng.randint(350, 500)
        return {
            "date": d.isoformat(), "steps": steps,
            "distance_km": round(steps * 0.00078, 2),
            "active_kcal": 250 + sum(a["duration_min"] * 7 for a in acts) + rng.randint(0, 200),
            "resting_hr": rng.randint(49, 58) + (3 if sleep < 380 else 0),
            "max_hr": max([rng.randint(110, 130)] + [a["avg_hr"] + rng.randint(15, 30)
                                                     for a in acts]),
            "stress_avg": rng.randint(18, 45) + (8 if wd < 5 else 0),
            "body_battery": {"high": rng.randint(55, 100), "low": rng.randint(5, 35)},
            "sleep": {"duration_min": sleep, "deep_min": rng.randint(40, 110),
                      "rem_min": rng.randint(60, 125), "score": rng.randint(55, 94)},
            "activities": acts,
        }

    def _cgm(self, rng: Random, d: date, first: bool, last: bool) -> dict[str, Any]:
        events = []
        for hhmm, kind in (("07:", "meal"), ("12:", "meal"), ("19:", "meal")):
            events.append({"time": f"{hhmm}{rng.randint(0, 59):02d}", "kind": kind,
                           "value": rng.randint(118, 178),
                           "note": fill("{meal}", rng)})
        if rng.random() < 0.6:
            events.append({"time": f"{rng.randint(17, 20)}:{rng.randint(0, 59):02d}",
                           "kind": "exercise", "value": rng.randint(85, 110),
                           "note": rng.choice(["climbing session", "walk after dinner",
                                               "ride home", "short run"])})
        events.sort(key=lambda e: e["time"].zfill(5))
        lo = rng.randint(62, 80)
        hi = max(e["value"] for e in events) + rng.randint(0, 12)
        return {"date": d.isoformat(), "unit": "mg/dL", "mean": rng.randint(92, 112),
                "min": lo, "max": hi, "time_in_range_pct": round(rng.uniform(86, 99.5), 1),
                "readings": rng.randint(150, 250) if (first or last) else 288,
                "events": events}

    # -- identity -----------------------------------------------------------------------------

    def identity(self) -> None:
        items = self.plan.items
        rng = self.rng("quotes")
        recs = []
        for i, d in enumerate(self.dates(rng, items["quote"]), start=1):
            text, ctx, source = QUOTES[(i - 1) % len(QUOTES)]
            if i > len(QUOTES):
                ctx = fill(rng.choice(_QUOTE_CONTEXTS), rng)
            recs.append({"id": f"q-{i:05d}", "date": d.isoformat(), "text": text,
                         "context": ctx, "source": source})
        self.write_jsonl("data/identity/quotes.jsonl", "quote", recs)

        rng = self.rng("observations")
        recs = []
        for i, d in enumerate(self.dates(rng, items["observation"]), start=1):
            obs, cat, ev = OBSERVATIONS[(i - 1) % len(OBSERVATIONS)]
            if i > len(OBSERVATIONS):
                ev = f"{ev} Seen again around {d.strftime('%B %Y')}."
            recs.append({"id": f"obs-{i:05d}", "date": d.isoformat(), "observation": obs,
                         "category": cat, "evidence": ev})
        self.write_jsonl("data/identity/observations.jsonl", "observation", recs)

        rng = self.rng("stories")
        recs = []
        for i, d in enumerate(self.dates(rng, items["story"]), start=1):
            title, people, story = STORIES[(i - 1) % len(STORIES)]
            title, story = _fill_same(rng, title, story)
            if i > len(STORIES):
                title = f"{title}, retold"
                story += " " + fill(rng.choice(_STORY_CODAS), rng)
            recs.append({"id": f"st-{i:05d}", "date": d.isoformat(), "title": title,
                         "story": story, "people": ["Sam Rivera", *people]})
        self.write_jsonl("data/identity/stories.jsonl", "story", recs)

    def interviews(self) -> None:
        rng = self.rng("interviews")
        used: set[str] = set()
        for i, d in enumerate(self.dates(rng, self.plan.items["interview"])):
            topic, desc, qas = INTERVIEW_TOPICS[i % len(INTERVIEW_TOPICS)]
            session = f"{d.isoformat()}-{topic}"
            while session in used:
                session += "-b"
            used.add(session)
            recs = [{"session_id": session, "date": d.isoformat(), "question": q, "answer": a}
                    for q, a in qas]
            self.write_jsonl(f"data/interviews/{session}.jsonl", "interview", recs)
            self.write_json(f"data/interviews/sessions/{session}.json", "interview_meta", {
                "session_id": session, "date": d.isoformat(), "topic": desc,
                "duration_min": rng.randint(25, 70), "question_count": len(qas),
                "summary": f"Session on {topic}: " + " ".join(a.split(".")[0] + "."
                                                              for _, a in qas[:2])}, 1)

    def podcasts(self) -> None:
        rng = self.rng("podcasts")
        recs = []
        for d in self.dates(rng, self.plan.items["podcast_digest"]):
            ep, gist, takeaways = rng.choice(PODCAST_EPISODES)
            pod = rng.choice(BANKS["podcast"])
            recs.append({"date": d.isoformat(), "podcast": pod, "episode": ep,
                         "digest": f"{gist} " + fill(rng.choice(_PODCAST_REACTIONS), rng),
                         "takeaways": list(takeaways)})
        self.write_jsonl("data/podcasts/digests.jsonl", "podcast_digest", recs)

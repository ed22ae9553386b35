"""The demo's meetings, voice memos, transcripts, board, memory files and notes."""

from __future__ import annotations

from .facts import DEMO_FACTS
from .helpers import _HMS, _bullets, _clock, _Md, _pack_count, _slug
from .notes import _NOTE_KINDS
from .spoken_text import INTERVIEW_TOPICS, MEETING_KINDS, MEETING_LINES, VOICE_TOPICS
from .tables import (
    _BOARD_ACTIONS,
    _BOARD_DECISIONS,
    _BOARD_DISCUSSION,
    _BOARD_FINANCE,
    _CODENAMES,
    _GOTCHAS,
    _MEETING_OUTCOMES,
    _MODULES,
    _SCRATCH_NOTES,
    _SCRATCH_TODAY,
    _SERVICES,
    _TRANSCRIPT_FOLLOWUPS,
    _TRANSCRIPT_INTROS,
    _TRANSCRIPT_REPLIES,
    _VOICE_EXTRAS,
    _WEEK_MISSES,
    _WEEK_WINS,
    _WORK_MEMORY,
    _WORK_MEMORY_INTROS,
)
from .word_banks import fill


class _Documents:
    """Writers of the longer documents; mixed into the generator (they use its state)."""

    # -- meetings, voice, transcripts ---------------------------------------------------------

    def meetings(self) -> None:
        rng = self.rng("meetings")
        used: set[str] = set()
        for d in self.dates(rng, self.plan.items["meeting"], weekdays=True):
            title, people, summary = rng.choice(MEETING_KINDS)
            attendees = ["Sam Rivera", *people]
            summary = fill(summary, rng) + " " + fill(rng.choice(_MEETING_OUTCOMES), rng)
            rel = f"data/meetings/processed/{d.isoformat()}-{_slug(title)}.json"
            k = 2
            while rel in used:
                rel = f"data/meetings/processed/{d.isoformat()}-{_slug(title)}-{k}.json"
                k += 1
            used.add(rel)
            segments, t = [], 0.0
            speaker = "Sam Rivera"
            for _ in range(rng.randint(8, 26)):
                if rng.random() < 0.7:
                    speaker = rng.choice(attendees)
                others = [a.split()[0] for a in attendees if a != speaker]
                text = fill(rng.choice(MEETING_LINES).replace(
                    "{attendee}", rng.choice(others)), rng)
                if rng.random() < 0.4:
                    text += " " + fill(rng.choice(MEETING_LINES).replace(
                        "{attendee}", rng.choice(others)), rng)
                dur = round(len(text) / 14 + rng.uniform(1, 6), 1)
                segments.append({"speaker": speaker, "start": round(t, 1),
                                 "end": round(t + dur, 1), "text": text})
                t += dur + rng.uniform(0.5, 20)
            header = f"Meeting: {title} — {d.isoformat()} — Attendees: {', '.join(attendees)}"
            lines = [f"[{_clock(s['start'])}] {s['speaker']}: {s['text']}" for s in segments]
            chunks = 1 + _pack_count(header, lines)
            self.write_json(rel, "meeting", {"title": title, "date": d.isoformat(),
                                             "attendees": attendees, "summary": summary,
                                             "segments": segments}, chunks)

    def voice(self) -> None:
        rng = self.rng("voice")
        used: set[str] = set()
        for d in self.dates(rng, self.plan.items["voice"]):
            title, base_lines = rng.choice(VOICE_TOPICS)
            rel = f"data/voice/{d.isoformat()}-{_slug(title)}.json"
            k = 2
            while rel in used:
                rel = f"data/voice/{d.isoformat()}-{_slug(title)}-{k}.json"
                k += 1
            used.add(rel)
            day = self.days[(d - self.plan.start).days]
            sec = rng.randint(7 * 3600, 22 * 3600)
            recorded = f"{day.iso}T{_HMS[sec]}{day.off}"
            texts = list(base_lines)
            if rng.random() < 0.5:
                texts.append(fill(rng.choice(_VOICE_EXTRAS), rng))
            segments, t = [], 0.0
            for text in texts:
                dur = round(len(text) / 15 + rng.uniform(0.5, 3), 1)
                segments.append({"start": round(t, 1), "end": round(t + dur, 1), "text": text})
                t += dur + rng.uniform(0.3, 4)
            header = f"Voice memo: {title} — recorded {day.iso} {_HMS[sec][:5]}"
            lines = [f"[{_clock(s['start'])}] {s['text']}" for s in segments]
            self.write_json(rel, "voice", {"recorded_at": recorded, "title": title,
                                           "segments": segments}, _pack_count(header, lines))

    def transcripts(self) -> None:
        rng = self.rng("transcripts")
        for i, d in enumerate(self.dates(rng, self.plan.items["transcript"])):
            topic, desc, qas = INTERVIEW_TOPICS[i % len(INTERVIEW_TOPICS)]
            md = _Md(preamble=f"Identity interview transcript, recorded {d.isoformat()} at home "
                              f"in Oakland. Topic: {desc}. Interviewer: Ada (memlens "
                              "interview agent). Lightly edited for readability.")
            md.section(1, f"Identity interview: {topic}", fill(rng.choice(_TRANSCRIPT_INTROS),
                                                                rng))
            for q, a in qas:
                follow = fill(rng.choice(_TRANSCRIPT_FOLLOWUPS), rng)
                md.section(2, q, f"**Sam:** {a}\n\n**Ada:** {follow}\n\n**Sam:** "
                                 + fill(rng.choice(_TRANSCRIPT_REPLIES), rng))
            suffix = "" if i < len(INTERVIEW_TOPICS) else f"-{i}"
            self.write_md(f"data/identity/transcripts/{d.isoformat()}-{topic}{suffix}.md",
                          "transcript", md)

    # -- markdown memory ----------------------------------------------------------------------

    def board(self) -> None:
        rng = self.rng("board")
        used: set[str] = set()
        for d in self.dates(rng, self.plan.items["board_summary"]):
            rel = f"data/board/{d.isoformat()}-granite-coop-board.md"
            k = 2
            while rel in used:
                rel = f"data/board/{d.isoformat()}-granite-coop-board-{k}.md"
                k += 1
            used.add(rel)
            month = d.strftime("%B %Y")
            md = _Md()
            md.section(1, f"Granite Climbing Co-op: board meeting, {month}",
                       f"Monthly board meeting held at the gym on {d:%A} {d.day} {d:%B}. "
                       "Minutes by Sam Rivera (treasurer).")
            md.section(2, "Attendees", _bullets(["Jonah Fischer (chair)", "Sam Rivera (treasurer)",
                                                 "Hannah Weiss (member rep)",
                                                 rng.choice(["Rosa Castillo (secretary)",
                                                             "Ben Hale (setting lead)"])]))
            md.section(2, "Treasurer's report", fill(rng.choice(_BOARD_FINANCE), rng))
            md.section(2, "Discussion", " ".join(fill(t, rng) for t in rng.sample(
                _BOARD_DISCUSSION, 2)))
            md.section(2, "Decisions", _bullets(fill(t, rng) for t in rng.sample(
                _BOARD_DECISIONS, 2)))
            md.section(2, "Action items", _bullets(fill(t, rng) for t in rng.sample(
                _BOARD_ACTIONS, 3)))
            self.write_md(rel, "board_summary", md)

    def codebase(self) -> None:
        rng = self.rng("codebase")
        for i in range(self.plan.items["codebase_doc"]):
            name, purpose = _SERVICES[i % len(_SERVICES)]
            if i >= len(_SERVICES):
                name = f"{name}-{_CODENAMES[(i // len(_SERVICES) - 1) % len(_CODENAMES)].lower()}"
                if i >= len(_SERVICES) * (1 + len(_CODENAMES)):
                    name += f"-{i}"
            deps = rng.sample([s for s, _ in _SERVICES if s != name], 2)
            owner = rng.choice(["Tomás Herrera", "Sam Rivera", "Kenji Watanabe"])
            md = _Md({"kind": "service", "name": name, "owner": owner, "depends_on": deps,
                      "date": self.dates(rng, 1)[0]})
            md.section(1, name, purpose)
            md.section(2, "Key modules", _bullets(fill(t, rng) for t in rng.sample(
                _MODULES, 3)))
            md.section(2, "Dependencies",
                       f"Calls {deps[0]} and {deps[1]}. Owned by {owner}; pages go to "
                       "#oncall.")
            md.section(2, "Gotchas", fill(rng.choice(_GOTCHAS), rng))
            md.section(3, "Known issues", fill("The {bug} came back once in {env}; see the "
                                                "postmortem for {incident}.", rng))
            self.write_md(f"memory/codebase/{name}.md", "codebase_doc", md)

    def rwgps(self) -> None:
        rng = self.rng("rwgps")
        for i in range(self.plan.items["rwgps_memory"]):
            title, sections = _WORK_MEMORY[i % len(_WORK_MEMORY)]
            if i >= len(_WORK_MEMORY):
                title = f"{title} ({i // len(_WORK_MEMORY) + 1})"
            md = _Md({"title": title, "date": self.dates(rng, 1)[0], "scope": "work"})
            md.section(1, title, fill(rng.choice(_WORK_MEMORY_INTROS), rng))
            for heading, body in sections:
                md.section(2, heading, fill(body, rng))
            self.write_md(f"memory/rwgps/{_slug(title)}.md", "rwgps_memory", md)

    def scratch(self) -> None:
        rng = self.rng("scratch")
        items = self.plan.items
        picks = sorted(rng.sample(range(self.plan.days), items["scratch_daily"]))
        for i in picks:
            day = self.days[i]
            md = _Md()
            md.section(2, "Today", _bullets(fill(t, rng) for t in rng.sample(_SCRATCH_TODAY, 3)))
            md.section(2, "Notes", fill(rng.choice(_SCRATCH_NOTES), rng))
            md.section(2, "Tomorrow", _bullets(fill("{todo}", rng) for _ in range(2)))
            self.write_md(f"memory/scratch/{day.iso}.md", "scratch", md)
        weeks = sorted(rng.sample(range(1, self.plan.weeks), items["scratch_weekly"]))
        for w in weeks:
            d = self.days[w * 7].d
            iso = d.isocalendar()
            md = _Md()
            md.section(1, f"Week {iso.week}, {iso.year}",
                       fill("Theme of the week: {project}. Energy: {feeling}.", rng))
            md.section(2, "Wins", _bullets(fill(t, rng) for t in rng.sample(_WEEK_WINS, 2)))
            md.section(2, "Misses", _bullets(fill(t, rng) for t in rng.sample(_WEEK_MISSES, 2)))
            md.section(2, "Next week", _bullets(fill("{todo}", rng) for _ in range(3)))
            self.write_md(f"memory/scratch/{iso.year}-W{iso.week:02d}.md", "scratch", md)

    # -- notes vault ----------------------------------------------------------------------------

    def notes(self) -> None:
        rng = self.rng("notes")
        d = self.ago(DEMO_FACTS["note_days_before_today"])
        fm = {"title": DEMO_FACTS["note_title"], "date": d, **{
            k: v for k, v in DEMO_FACTS["note_frontmatter"].items() if k != "title"}}
        md = _Md(fm)
        md.section(1, "Atlas migration plan",
                   "Move tile serving and routing off the old monolith onto the Atlas platform "
                   "without a user-visible outage. Owner: Sam. Sponsor: Priya. #atlas/cutover")
        md.section(2, "Goals", _bullets([
            "Cut tile p99 latency below 120 ms", "Retire the legacy render farm by Q3",
            "Zero lost routes during the cutover"]))
        md.section(2, "Cutover steps",
                   "1. Dual-write routes to both stores for two weeks.\n2. Shadow-read and "
                   "compare.\n3. Flip reads region by region, eu-west first.\n\nWe picked "
                   "region-by-region over a big-bang flip. #decision")
        md.section(3, "Rollback",
                   "Reads can flip back per region within five minutes; writes stay dual "
                   "until the final sign-off with Tomás. #risk")
        md.section(2, "Open questions", _bullets([
            "Who owns the elevation service after the move?",
            "Do we need a freeze during the iOS release?",
            "Budget for the extra replica in eu-west"]))
        self.write_md(DEMO_FACTS["note_file"], "note", md)

        used = {DEMO_FACTS["note_file"]}
        kinds = list(_NOTE_KINDS)
        n = self.plan.items["note"] - 1
        for i, nd in enumerate(self.dates(rng, max(0, n))):
            kind = kinds[i % len(kinds)] if i < len(kinds) else rng.choice(kinds)
            rel, md = _NOTE_KINDS[kind](rng, nd)
            stem = rel[:-3]
            k = 2
            while rel in used:
                rel = f"{stem}-{k}.md"
                k += 1
            used.add(rel)
            self.write_md(rel, "note", md)

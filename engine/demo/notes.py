"""Recipes of the demo vault's notes: one function per kind of note."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from random import Random

from .helpers import _bullets, _Md, _slug
from .word_banks import BANKS, fill


def _note_recipe(rng: Random, d: date) -> tuple[str, _Md]:
    food = rng.choice(BANKS["food"])
    md = _Md({"title": food.capitalize(), "date": d, "tags": ["cooking", "recipe"],
              "status": rng.choice(["tested", "draft", "favorite"]),
              "priority": rng.randint(2, 5)})
    md.section(1, food.capitalize(), fill("Adapted from Marcus's version; serves four. Goes "
                                          "well with {food}.", rng))
    md.section(2, "Ingredients", _bullets(rng.sample(
        ["2 onions", "4 cloves garlic", "1 can tomatoes", "olive oil", "salt and pepper",
         "1 lemon", "a bunch of cilantro", "500 g chicken thighs", "300 g mushrooms",
         "1 cup rice", "fish sauce", "butter"], 6)))
    md.section(2, "Method", "1. Prep everything first.\n2. " + fill(
        "Cook low and slow with {ingredient}.", rng) + "\n3. Taste, adjust, rest five minutes.")
    md.section(2, "Notes", fill("Made it for {friend}; next time more {ingredient}. "
                                "#weeknight #cooking", rng))
    return f"notes/cooking/recipes/{_slug(food)}.md", md


def _note_climbing(rng: Random, d: date) -> tuple[str, _Md]:
    route, grade, crag = (rng.choice(BANKS[k]) for k in ("route", "grade", "crag"))
    md = _Md({"title": f"{route} ({grade})", "date": d, "tags": ["climbing", "project"],
              "status": rng.choice(["projecting", "sent", "someday"]),
              "priority": rng.randint(1, 4)})
    md.section(1, f"{route}, {crag}", f"A {grade} at {crag}. Hannah's recommendation.")
    md.section(2, "Beta", fill("Start matched on the jug, high left foot, deadpoint to the "
                               "crimp. The crux is the {n}th move. #beta", rng))
    md.section(2, "Sessions", _bullets(
        f"{(d - timedelta(days=7 * k)).isoformat()}: " + rng.choice(
            ["fell at the crux", "linked the top half", "cold, no progress", "so close"])
        for k in range(3, 0, -1)))
    md.section(2, "Next time", "Warm up longer; bring the brush. #climbing")
    return f"notes/climbing/projects/{_slug(route)}.md", md


def _note_book(rng: Random, d: date) -> tuple[str, _Md]:
    book = rng.choice(BANKS["book"])
    md = _Md({"title": book, "date": d, "tags": ["books", "reading"],
              "status": rng.choice(["reading", "finished", "abandoned"]),
              "priority": rng.randint(3, 5)})
    md.section(1, book, fill("Picked for book club by Olivia. Read it on the train and in "
                             "bed, about {n} weeks.", rng))
    md.section(2, "Summary", "What stayed with me: patience, attention, and how slowly big "
                             "things change. #books")
    md.section(2, "Thoughts", fill("Reminded me of {project} in a strange way. Maya liked "
                                   "it more than I did.", rng))
    return f"notes/books/{_slug(book)}.md", md


def _note_work(rng: Random, d: date) -> tuple[str, _Md]:
    proj = rng.choice(BANKS["project_short"])
    topic = rng.choice(["decision log", "risks", "retro", "design notes", "metrics"])
    title = f"{proj.capitalize()} {topic}"
    md = _Md({"title": title, "date": d, "tags": ["work", _slug(proj)],
              "status": rng.choice(["active", "draft", "done", "archived"]),
              "priority": rng.randint(1, 3)})
    md.section(1, title, fill("Context: {project}. People: Tomás, Kenji, Grace.", rng))
    md.section(2, "Context", fill("We need to {eng_action} before {month}. #work", rng))
    md.section(2, "Options", "Two options on the table; see below.")
    md.section(3, "Option A", fill("{eng_action}. Cheaper, slower.", rng))
    md.section(3, "Option B", fill("{eng_action}. Faster, riskier.", rng))
    md.section(2, "Decision", fill("Going with option A; revisit in {month}. #decision", rng))
    return f"notes/work/{_slug(proj)}/{_slug(topic)}.md", md


def _note_oneonone(rng: Random, d: date) -> tuple[str, _Md]:
    who = rng.choice(["Kenji", "Priya", "Tomás"])
    md = _Md({"title": f"1:1 with {who}, {d.isoformat()}", "date": d,
              "tags": ["work", "1on1"], "status": "done", "priority": 2})
    md.section(1, f"1:1 with {who}", f"Weekly 1:1 with {who}.")
    md.section(2, "Wins", fill("{feature} shipped; the {bug} is gone.", rng))
    md.section(2, "Concerns", fill("Workload around {project}; {month} looks crowded.", rng))
    md.section(2, "Action items", _bullets([fill("{eng_action}", rng), "Follow up next week"]))
    return f"notes/work/1on1s/{d.isoformat()}-{_slug(who)}.md", md


def _note_travel(rng: Random, d: date) -> tuple[str, _Md]:
    place = rng.choice(["Lisbon", "Kyoto", "Mexico City", "Vancouver", "Big Sur", "Bishop"])
    md = _Md({"title": f"{place} trip", "date": d, "tags": ["travel", _slug(place)],
              "status": rng.choice(["planning", "done"]), "priority": rng.randint(2, 4)})
    md.section(1, f"{place} trip", "With Maya. Climbing for Sam, museums for Maya, food for "
                                   "both. #travel")
    md.section(2, "Itinerary", _bullets(f"Day {k}: " + fill(rng.choice(
        ["walk the old town", "day trip to {crag}", "markets and a long lunch",
         "rest day with {book}"]), rng) for k in range(1, 4)))
    md.section(2, "Food", fill("Must try: {food}. Ask Marcus for tips.", rng))
    md.section(2, "Packing", "Passport, chargers, climbing shoes, the good camera.")
    return f"notes/travel/{_slug(place)}/{_slug(place)}-trip.md", md


def _note_health(rng: Random, d: date) -> tuple[str, _Md]:
    topic = rng.choice(["Sleep log", "CGM findings", "Shoulder rehab", "Lab results"])
    md = _Md({"title": topic, "date": d, "tags": ["health"], "status": "active",
              "priority": rng.randint(1, 3)})
    md.section(1, topic, "Notes for Dr. Mensah. #health")
    md.section(2, "Observations", fill("Resting HR around {hr}; sleep {hours} hours on "
                                       "average.", rng))
    md.section(2, "Plan", fill("Keep the walk after dinner; try {todo}.", rng))
    return f"notes/health/{_slug(topic)}.md", md


def _note_inbox(rng: Random, d: date) -> tuple[str, _Md]:
    md = _Md(preamble=fill("Quick thought: {eng_action} in {eng_thing}? Also {todo}. #inbox",
                           rng))
    md.section(2, "Later", fill("Ask {colleague}. Maybe for {month}.", rng))
    return f"notes/inbox/{d.isoformat()} quick note.md", md


def _note_idea(rng: Random, d: date) -> tuple[str, _Md]:
    idea = rng.choice(["Corridor tile bundles", "Co-op volunteer app", "Family recipe book",
                       "Ride-planning for clubs", "A better standup"])
    md = _Md({"title": idea, "date": d, "tags": ["ideas"], "status": "someday",
              "priority": rng.randint(3, 5)})
    md.section(1, idea, fill("Came to me on the ride up {ride}. #idea", rng))
    md.section(2, "Why", fill("Because {user_need} keep asking for it.", rng))
    md.section(2, "Next step", fill("Talk to {friend} or {colleague}.", rng))
    return f"notes/ideas/{_slug(idea)}.md", md


_NOTE_KINDS: dict[str, Callable[[Random, date], tuple[str, _Md]]] = {
    "recipe": _note_recipe, "climbing": _note_climbing, "book": _note_book, "work": _note_work,
    "oneonone": _note_oneonone, "travel": _note_travel, "health": _note_health,
    "inbox": _note_inbox, "idea": _note_idea,
}

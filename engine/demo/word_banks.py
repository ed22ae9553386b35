"""Word banks and the slot filler of the demo data root's sentence templates (see
:mod:`engine.demo`).

Templates use ``{slot}`` placeholders, filled by :func:`fill` from :data:`BANKS` (a slot value may
itself hold slots, filled once more) or from :data:`NUMBERS` (random integers in a range). The
templates themselves are in chat_text.py (chat messages), record_text.py (journal, email,
events, stories...) and spoken_text.py (podcasts, interviews, voice memos, meetings); the people
in cast.py.

Vocabulary rules the demo's search facts rely on (``engine.demo.DEMO_FACTS``), for every one of
those modules:

- nothing here says "job", "jobs" or "fatigue", nor "burned out", "burnout", "exhausted" or
  "drained": the one journal entry about feeling burned out at work is the only text a
  query like "job fatigue" can find, and only semantically;
- nothing here names the restaurant of the rare-noun fact, or any word of it.
"""

from __future__ import annotations

import re
from random import Random

# ---------------------------------------------------------------------------------------------
# Slot banks
# ---------------------------------------------------------------------------------------------

BANKS: dict[str, list[str]] = {
    "project": ["the Atlas migration", "Routefinder v2", "offline maps", "the billing revamp",
                "the tile cache rewrite", "the elevation service", "the search reindex",
                "the iOS 7.0 release", "the gravel surface model", "the route sharing launch"],
    "project_short": ["Atlas", "Routefinder", "offline maps", "billing", "tile cache",
                      "elevation", "search", "route sharing"],
    "eng_thing": ["the tile cache", "the geocoder", "the route planner", "the elevation service",
                  "the auth proxy", "the billing worker", "the search indexer",
                  "the map renderer", "the sync API", "the Postgres replica",
                  "the Kafka consumer", "the feature flag service", "the CI pipeline",
                  "the iOS build", "the Android build", "the vector tile pipeline",
                  "the rate limiter", "the GPX import worker", "the webhook dispatcher",
                  "the cron scheduler", "the CDN config", "the Terraform module"],
    "bug": ["race in the cache warmer", "off-by-one in pagination", "timezone bug",
            "memory leak", "N+1 query", "deadlock on the routes table",
            "crash on empty routes", "double-charge edge case", "stale CDN headers",
            "unicode bug in place names", "retry storm", "slow cold start",
            "missing index on segments"],
    "env": ["staging", "prod", "the canary", "eu-west", "the perf cluster", "us-east"],
    "eng_action": ["add a circuit breaker", "split the table", "pin the dependency",
                   "write a runbook", "add tracing", "backfill the missing rows",
                   "turn on the flag for 5% of users", "cut a release branch",
                   "shard by region", "drop the legacy column", "add a canary stage",
                   "bump the connection pool", "move it behind the queue",
                   "delete the dead code path", "add a load test"],
    "incident": ["the Tuesday tile outage", "the billing double-charge", "the DNS blip",
                 "the replica lag incident", "the expired cert", "the search backlog",
                 "the GPX import pileup"],
    "feature": ["offline maps", "turn-by-turn cues", "route sharing", "the heatmap layer",
                "the gravel filter", "the trip planner", "segment leaderboards", "dark mode",
                "elevation profiles", "the new onboarding"],
    "user_need": ["people planning multi-day trips", "riders who lose signal in the hills",
                  "clubs sharing group routes", "new users who never save a route",
                  "people exporting to their bike computers"],
    "colleague": ["Priya", "Tomás", "Kenji", "Grace"],
    "friend": ["Bobby", "Hannah", "Marcus", "Olivia"],
    "crew": ["Hannah", "Bobby", "Kenji"],
    "gym": ["Granite Co-op", "the co-op", "the Boulder Barn"],
    "crag": ["Castle Rock", "Indian Rock", "Pinnacles", "Mickey's Beach", "Tahoe", "Bishop",
             "Joshua Tree", "Smith Rock", "Yosemite", "Donner Summit"],
    "grade": ["5.10a", "5.10c", "5.10d", "5.11a", "5.11b", "V3", "V4", "V5", "V2"],
    "route": ["Ghost Pepper", "Slab City", "Lunch Ledge", "The Zipper", "Moonlight Arete",
              "Crimp Tax", "Tidepool Traverse", "Sugar Cube", "Fern Gully", "Old Faithful",
              "Quartz Mountain Crack", "The Cheese Grater"],
    "food": ["mushroom risotto", "green curry", "sourdough", "shakshuka", "pork dumplings",
             "miso salmon", "black bean chili", "rosemary focaccia", "tonkotsu ramen",
             "tacos al pastor", "lemon pasta", "chicken adobo", "lentil soup", "paella",
             "kimchi fried rice", "roast chicken", "eggplant parm", "mole"],
    "ingredient": ["brown butter", "smoked paprika", "fish sauce", "preserved lemon",
                   "a splash of mezcal", "fresh curry leaves", "anchovies", "miso",
                   "white pepper", "lots of garlic"],
    "grocery": ["oat milk", "limes", "a bag of rice", "coffee beans", "eggs", "cilantro",
                "paper towels", "the good bread", "tortillas", "bananas"],
    "book": ["The Overstory", "Piranesi", "Project Hail Mary", "Deep Work", "The Dispossessed",
             "Four Thousand Weeks", "Braiding Sweetgrass", "A Psalm for the Wild-Built",
             "Klara and the Sun", "Thinking in Systems", "The Left Hand of Darkness",
             "Sea of Tranquility", "The Ministry for the Future", "Range",
             "Tomorrow, and Tomorrow, and Tomorrow", "An Immense World"],
    "place": ["Lisbon", "Kyoto", "Mexico City", "Portland", "Vancouver", "Big Sur",
              "Sacramento", "Seattle", "Bishop", "Joshua Tree", "Point Reyes", "Mendocino"],
    "show": ["the baking show", "that Danish crime series", "the climbing documentary",
             "Severance", "the nature doc", "an old Miyazaki movie"],
    "podcast": ["Changelog Weekly", "The Long Pitch", "Kitchen Table Science",
                "Signal & Noise", "Slow Miles", "The Systems Hour", "Mind the Gap",
                "Second Breakfast", "Field Notes Radio"],
    "feeling": ["calm", "scattered", "hopeful", "restless", "content", "anxious", "proud",
                "grateful", "flat", "energized", "light", "a bit lonely", "focused"],
    "weekday": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "month": ["January", "February", "March", "April", "May", "June", "July", "August",
              "September", "October", "November", "December"],
    "clock": ["9:30", "10", "11:15", "noon", "1:30", "2", "3:45", "4:30", "5"],
    "when": ["today", "this afternoon", "before Friday", "when you get a chance", "after lunch",
             "tomorrow morning", "by EOD"],
    "lunch_place": ["the taco truck", "Sunny Pho", "the ramen place on Telegraph",
                    "Banh Mi Station", "the salad spot", "Golden Dumpling", "the pizza window"],
    "treat": ["donuts", "banana bread", "mochi", "a huge box of clementines", "conchas",
              "homemade cookies"],
    "holiday": ["Thanksgiving", "Christmas", "Mom's birthday", "the Fourth", "Easter",
                "New Year's"],
    "niece": ["Nina", "Teo"],
    "kid_thing": ["learning to ride a bike", "singing in the school play",
                  "reading a whole chapter book", "losing a tooth", "building a cardboard castle",
                  "doing a cartwheel"],
    "ride": ["the Three Bears loop", "Mount Diablo", "the Skyline climb", "Paradise Loop",
             "the Nicasio reservoir loop", "Claremont Canyon"],
    "house_thing": ["leaky faucet", "water heater", "back fence", "gutter", "garage door"],
    "errand": ["dentist", "vet", "plumber", "insurance people", "landlord"],
    "trip_thing": ["cabin", "flights", "car rental", "campsite", "hotel"],
    "coop_event": ["route-setting night", "youth climbing day", "member meeting",
                   "gear swap", "annual fundraiser"],
    "reminder": ["call Mom about the knee appointment", "pay the co-op invoice",
                 "renew the car registration", "book the dentist", "send Lucia the photos",
                 "water the tomatoes", "prep the Atlas review", "buy Maya's gift",
                 "move the 1:1 with Kenji", "finish the board budget"],
    "todo": ["stretch before bed", "read 20 pages", "reply to Jonah",
             "order climbing shoes", "draft the Atlas retro", "call the plumber",
             "back up the photos", "pick up the CSA box"],
    "gratitude": ["Maya's laugh", "a slow morning", "good coffee", "Hannah's patience",
                  "Mom's voice notes", "Marcus's bread", "a quiet Sunday", "the fog burning off",
                  "a clean deploy", "Bobby's terrible jokes"],
    "sev": ["SEV2", "SEV3", "WARN", "CRIT"],
    "meal": ["oatmeal with berries", "a burrito", "pasta", "toast and eggs", "pad thai",
             "a smoothie", "rice and curry", "a pastry", "pizza", "salad with chicken"],
}

# {slot}: (low, high) inclusive random integers
NUMBERS: dict[str, tuple[int, int]] = {
    "ms": (40, 900), "ms2": (30, 300), "pct": (2, 97), "minutes": (5, 90), "n": (2, 9),
    "num3": (100, 999), "quarter": (1, 4), "small_pct": (3, 18), "rps": (800, 20000), "hours": (5, 9), "hr": (48, 62), "km": (12, 110),
}

_SLOT = re.compile(r"\{(\w+)\}")


def fill(template: str, rng: Random) -> str:
    """Fill ``{slot}`` placeholders from BANKS / NUMBERS (two passes for nested slots)."""

    def one(m: re.Match) -> str:
        key = m.group(1)
        bank = BANKS.get(key)
        if bank is not None:
            return bank[int(rng.random() * len(bank))]
        lo, hi = NUMBERS[key]
        return str(rng.randint(lo, hi))

    text = _SLOT.sub(one, template)
    if "{" in text:
        text = _SLOT.sub(one, text)
    return text

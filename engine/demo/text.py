"""Word banks and sentence templates for the demo data root (see :mod:`engine.demo`).

Templates use ``{slot}`` placeholders, filled by :func:`fill` from :data:`BANKS` (a slot value may
itself hold slots, filled once more) or from :data:`NUMBERS` (random integers in a range).

Vocabulary rules the demo's search facts rely on (``engine.demo.DEMO_FACTS``):

- nothing here says "job", "jobs" or "fatigue", nor "burned out", "burnout", "exhausted" or
  "drained": the one journal entry about feeling burned out at work is the only text a
  query like "job fatigue" can find, and only semantically;
- nothing here names the restaurant of the rare-noun fact, or any word of it.
"""

from __future__ import annotations

import re
from random import Random

# ---------------------------------------------------------------------------------------------
# The cast
# ---------------------------------------------------------------------------------------------

PERSON = "Sam Rivera"
PERSON_FIRST = "Sam"
EMPLOYER = "Fernhill Maps"
HOME = "Oakland, CA"
TIMEZONE_NAME = "America/Los_Angeles"  # offsets computed by rule in engine.demo (no tzdata)

# name, aliases, relationship, context, notes, interests, milestones (month offsets are relative
# to the start of the demo year, so the generator can place them in any year)
PEOPLE: list[dict] = [
    {
        "name": "Maya Chen", "aliases": ["Maya"], "relationship": "partner",
        "slug": "maya-chen", "circle": "home",
        "context": "Sam's partner of six years; they live together in Oakland. Landscape architect "
                   "at a small studio in Berkeley.",
        "notes": "Early riser, loves ceramics and long dinners. Birthday in late summer. Gets "
                 "quiet when stressed; a walk around the lake helps.",
        "interests": ["ceramics", "gardening", "cooking", "hiking"],
        "milestones": [(2, "Maya started her own landscape studio"),
                       (8, "Maya's birthday dinner; Sam planned the evening")],
    },
    {
        "name": "Lucia Rivera", "aliases": ["Lu", "Lucy"], "relationship": "sister",
        "slug": "lucia-rivera", "circle": "family",
        "context": "Sam's older sister, a nurse in Sacramento, married to Andre, two kids "
                   "(Nina, 7, and Teo, 4).",
        "notes": "The family organizer. Calls on Sunday evenings. Training for her first "
                 "half marathon.",
        "interests": ["running", "gardening", "true crime podcasts"],
        "milestones": [(4, "Lucia ran her first half marathon"),
                       (9, "Nina started second grade")],
    },
    {
        "name": "Elena Rivera", "aliases": ["Mom", "Mama"], "relationship": "mother",
        "slug": "elena-rivera", "circle": "family",
        "context": "Sam's mother, retired high-school chemistry teacher, lives in Sacramento "
                   "near Lucia.",
        "notes": "Had knee surgery this spring; recovering well. Sends recipes by Signal, "
                 "always with voice notes.",
        "interests": ["gardening", "choir", "mystery novels", "cooking"],
        "milestones": [(3, "Knee replacement surgery"),
                       (6, "Back to choir after recovery")],
    },
    {
        "name": "Robert Okafor", "aliases": ["Bobby", "Rob"], "relationship": "best friend",
        "slug": "robert-okafor", "circle": "friends",
        "context": "Sam's best friend since college (UC Davis). Everyone calls him Bobby. "
                   "High-school history teacher in San Leandro.",
        "notes": "Climbs and cycles with Sam; co-owns a very old pickup with him for crag "
                 "trips. Engaged to Dana.",
        "interests": ["climbing", "cycling", "history", "fantasy football"],
        "milestones": [(5, "Bobby got engaged to Dana"),
                       (10, "Bobby and Sam rode the Mount Diablo century")],
    },
    {
        "name": "Priya Natarajan", "aliases": ["Priya"], "relationship": "manager",
        "slug": "priya-natarajan", "circle": "work",
        "context": "VP of Engineering at Fernhill Maps and Sam's manager since last spring.",
        "notes": "Direct, fair, protective of focus time. Pushing Sam toward a staff-level "
                 "scope on the Atlas migration.",
        "interests": ["distributed systems", "mentoring", "trail running"],
        "milestones": [(1, "Priya approved the Atlas migration plan"),
                       (7, "Mid-year review: Priya nominated Sam for staff engineer")],
    },
    {
        "name": "Tomás Herrera", "aliases": ["Tomás", "Tomas"], "relationship": "colleague",
        "slug": "tomas-herrera", "circle": "work",
        "context": "Senior backend engineer on the routing team; Sam's closest collaborator "
                   "on Atlas.",
        "notes": "Knows the tile pipeline better than anyone. Plays bass in a cumbia band on "
                 "weekends.",
        "interests": ["music", "databases", "soccer"],
        "milestones": [(4, "Tomás led the tile cache cutover"),
                       (9, "Tomás became tech lead of routing")],
    },
    {
        "name": "Kenji Watanabe", "aliases": ["Kenji"], "relationship": "direct report",
        "slug": "kenji-watanabe", "circle": "work",
        "context": "Software engineer on Sam's team, joined Fernhill a year ago from a "
                   "bootcamp.",
        "notes": "Quiet, very thorough, growing fast. Wants to get better at design docs. "
                 "First on-call rotation went well.",
        "interests": ["photography", "mechanical keyboards", "bouldering"],
        "milestones": [(3, "Kenji's first on-call week"),
                       (8, "Kenji promoted to Software Engineer II")],
    },
    {
        "name": "Grace O'Neill", "aliases": ["Grace"], "relationship": "colleague",
        "slug": "grace-oneill", "circle": "work",
        "context": "Product manager for route planning at Fernhill Maps.",
        "notes": "Runs great user interviews; sometimes over-commits the roadmap. Sam's ally on "
                 "offline maps.",
        "interests": ["user research", "gravel cycling", "board games"],
        "milestones": [(5, "Grace launched offline maps beta")],
    },
    {
        "name": "Hannah Weiss", "aliases": ["Hannah", "Han"], "relationship": "climbing partner",
        "slug": "hannah-weiss", "circle": "friends",
        "context": "Sam's main climbing partner; they met at the Granite Co-op gym four years "
                   "ago. ER doctor at Highland Hospital.",
        "notes": "Strong on slab, fearless on lead. Works night shifts, so sessions are at odd "
                 "hours.",
        "interests": ["climbing", "trail running", "birding"],
        "milestones": [(6, "Hannah and Sam climbed the East Buttress of El Capitan"),
                       (11, "Hannah finished her residency")],
    },
    {
        "name": "Marcus Bell", "aliases": ["Marcus"], "relationship": "neighbor",
        "slug": "marcus-bell", "circle": "friends",
        "context": "Next-door neighbor in Oakland; retired line cook who now teaches knife "
                   "skills classes.",
        "notes": "Shares sourdough starter and opinions. Keeps an eye on the house when Sam and "
                 "Maya travel.",
        "interests": ["cooking", "jazz", "fermentation"],
        "milestones": [(2, "Marcus taught Sam to make fresh pasta")],
    },
    {
        "name": "Amara Mensah", "aliases": ["Dr. Mensah"], "relationship": "physician",
        "slug": "amara-mensah", "circle": "health",
        "context": "Sam's primary-care doctor at the Rockridge clinic.",
        "notes": "Suggested the two-week CGM trial and the sleep experiments. Annual physical "
                 "in the fall.",
        "interests": ["preventive medicine", "sleep"],
        "milestones": [(1, "Annual physical; cholesterol slightly high"),
                       (10, "Follow-up: numbers improved")],
    },
    {
        "name": "Jonah Fischer", "aliases": ["Jonah"], "relationship": "mentor",
        "slug": "jonah-fischer", "circle": "coop",
        "context": "Chair of the Granite Climbing Co-op board, where Sam is treasurer; former "
                   "CTO and Sam's informal mentor.",
        "notes": "Meets Sam for coffee monthly. Good at asking the one question that matters.",
        "interests": ["climbing", "woodworking", "leadership"],
        "milestones": [(0, "Sam joined the co-op board as treasurer"),
                       (9, "Co-op members approved the new bouldering wall")],
    },
    {
        "name": "Olivia Park", "aliases": ["Liv"], "relationship": "friend",
        "slug": "olivia-park", "circle": "friends",
        "context": "Friend from the neighborhood book club; illustrator of children's books.",
        "notes": "Picks the best books. Moving to Portland next year, maybe.",
        "interests": ["books", "illustration", "ceramics"],
        "milestones": [(7, "Olivia's picture book was published")],
    },
]

# Generated coworkers and acquaintances (never in relationships.json) for chat volume.
FIRST_NAMES = [
    "Aaron", "Adaeze", "Aiko", "Alejandro", "Amir", "Ana", "Andre", "Anika", "Arjun", "Beatriz",
    "Ben", "Bilal", "Camila", "Chloe", "Chris", "Dana", "Daniel", "Diego", "Elif", "Emeka",
    "Emma", "Fatima", "Felix", "Gabriel", "Hana", "Hugo", "Ibrahim", "Imani", "Isla", "Jae",
    "Jamal", "Jasmine", "Javier", "Jin", "Jordan", "Julia", "Kai", "Kavya", "Keanu", "Laila",
    "Leo", "Lina", "Luis", "Malik", "Mateo", "Mei", "Mira", "Nadia", "Nate", "Noor", "Omar",
    "Paolo", "Quinn", "Rafael", "Rhea", "Rosa", "Ruth", "Sana", "Sebastián", "Shreya", "Simone",
    "Sora", "Talia", "Theo", "Uma", "Vikram", "Wen", "Xavier", "Yara", "Yusuf", "Zara", "Zoe",
]
LAST_NAMES = [
    "Abbott", "Adeyemi", "Alvarez", "Bauer", "Becker", "Brooks", "Castillo", "Choi", "Cohen",
    "Costa", "Das", "Diallo", "Dubois", "Eriksen", "Ferreira", "Fong", "Garcia", "Gupta",
    "Haddad", "Hale", "Ibarra", "Ito", "Jensen", "Kaur", "Kim", "Kowalski", "Larsen", "Lee",
    "Lindqvist", "Lopez", "Madsen", "Moreau", "Murphy", "Nakamura", "Ng", "Novak", "Osei",
    "Patel", "Petrov", "Quintero", "Reyes", "Rossi", "Saito", "Schmidt", "Shah", "Silva",
    "Singh", "Sorensen", "Tan", "Torres", "Tran", "Usman", "Varga", "Vasquez", "Wang", "Wu",
    "Yamamoto", "Yilmaz", "Zhang", "Zimmerman",
]

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


# ---------------------------------------------------------------------------------------------
# Chat message templates, per conversation domain
# ---------------------------------------------------------------------------------------------

CHAT: dict[str, list[str]] = {
    "eng": [
        "PR for {eng_thing} is up, could use a second pair of eyes {when}",
        "{eng_thing} is flaky again on main, rerunning",
        "pushed a fix for the {bug} in {eng_thing}",
        "anyone know why {eng_thing} started timing out around {clock}?",
        "deploying {eng_thing} to {env} now",
        "rolled back {eng_thing}, p99 went from {ms}ms to {ms2}ms",
        "I think we should {eng_action} before we {eng_action}",
        "{colleague}, can you take a look at the {bug}?",
        "writing up the design doc for {project} today",
        "benchmarks for {eng_thing}: {pct}% faster on a cold cache",
        "merged, thanks {colleague}!",
        "the backfill for {project} finished in {minutes} minutes",
        "heads up: {env} will be down for ~{minutes} min while we {eng_action}",
        "+1 to what {colleague} said, let's {eng_action}",
        "did the {eng_thing} alerts fire overnight or was that just me?",
        "tracking it in ATLAS-{num3}",
        "pairing with {colleague} on {project} after standup",
        "moved the retry logic into {eng_thing}, much cleaner now",
        "is anyone still calling the old {eng_thing} endpoint? I want to delete it",
        "I'll own the rollout plan for {project}",
        "load test on {eng_thing} peaked at {rps} rps before it fell over",
        "found it: the {bug} only shows up in {env}",
        "can someone with prod access check the {eng_thing} logs?",
        "new dashboard for {eng_thing} is pinned in the channel",
        "we're {pct}% through the {project} cutover",
        "the flame graph says {eng_thing} spends most of its time in JSON parsing",
        "standup notes: {project} on track, {eng_thing} blocked on review",
        "I'm out {weekday}, {colleague} is covering reviews",
        "honest question: do we still need {eng_thing}?",
        "the {bug} is fixed in {env}, verifying in prod {when}",
        "reverted, sorry all. my bad on the {bug}",
        "nice catch {colleague} 🙌",
        "opened an RFC to {eng_action} in {eng_thing}, comments welcome",
        "migrations are green on {env}",
        "who owns {eng_thing} these days?",
    ],
    "product": [
        "user interviews this week keep pointing at {user_need}",
        "roadmap review moved to {weekday} at {clock}",
        "can we get {feature} into the {month} release?",
        "{feature} numbers look good: {pct}% of active users tried it in week one",
        "{colleague} shared the mocks for {feature}, they look great",
        "support tickets about {feature} doubled since the release",
        "let's cut scope on {feature} and ship the core flow first",
        "I drafted the launch post for {feature}, need an eng sanity check",
        "the survey closed: {num3} responses, mostly about {user_need}",
        "priorities for next quarter: {project}, then {feature}",
        "is {feature} blocked on {project} or can it go in parallel?",
        "marketing wants a date for {feature}. I said {month}, no promises",
        "retention for {user_need} is up {pct}% since the onboarding change",
        "A/B test for {feature} is live at 10%",
    ],
    "ops": [
        "[{sev}] {eng_thing} error rate {pct}% over threshold",
        "ack, looking",
        "resolved: {eng_thing} back under SLO",
        "paging {colleague}, {eng_thing} disk at {pct}%",
        "postmortem doc for {incident} is up, please add your timeline notes",
        "silencing the {eng_thing} alert until the maintenance window ends",
        "[{sev}] p99 latency on {eng_thing} at {ms}ms for 10 minutes",
        "mitigated by restarting {eng_thing}; root cause still unknown",
        "handing off on-call to {colleague}, quiet week except {incident}",
        "cert renewal for {eng_thing} is due in {n} days",
        "RECOVERY {eng_thing} healthy in {env}",
        "[{sev}] queue depth on {eng_thing} is {rps}",
        "false alarm, it was the synthetic check",
        "runbook for {eng_thing} was out of date, fixed it",
        "who is secondary on-call this week? {colleague}?",
        "the {eng_thing} dashboard shows a spike at {clock}, investigating",
        "[{sev}] {eng_thing} 5xx rate at {pct}% in {env}",
        "status page updated; customers in {env} may see slow route loads",
        "incident channel for {incident} is archived, thanks all",
        "restarted {eng_thing} in {env}; error rate back to baseline",
        "the {bug} caused this one, same as {incident}",
        "adding a dashboard panel for {eng_thing} queue age",
    ],
    "social": [
        "anyone want to grab lunch at {lunch_place}?",
        "happy {weekday} folks",
        "{colleague} brought {treat}, 3rd floor kitchen",
        "reminder: all-hands {weekday} at {clock}",
        "the espresso machine is broken again",
        "this weekend I finally rode {ride}",
        "congrats to {colleague} on the promotion! 🎉",
        "who's going to the offsite in {month}?",
        "book recs? just finished {book}",
        "it's so foggy out there today",
        "lost a blue water bottle on the 2nd floor, has stickers from {crag}",
        "the new hire lunch is at {lunch_place} {weekday}",
        "there is cake in the kitchen, no questions asked",
        "anyone else watching {show}?",
        "PSA: bike room is full, use the racks outside",
        "who took the good whiteboard markers",
        "lunch and learn {weekday}: {colleague} on {project}",
        "the office plants are thriving, whoever is watering them, thank you",
        "anyone riding {ride} this weekend?",
        "pet pics thread, go",
        "{colleague}'s sourdough is in the kitchen, it's incredible",
    ],
    "climbing": [
        "anyone going to {gym} tonight?",
        "sent {route} ({grade}) today!! took me {n} sessions",
        "conditions at {crag} look perfect this weekend",
        "my fingers are wrecked from the board session",
        "new set at {gym}, the purple {grade} is sandbagged",
        "who's in for {crag} on {weekday}? I can drive",
        "lost my chalk bag at {crag}, if anyone finds it",
        "rest day. hangboard tomorrow",
        "{route} is so much harder than {grade}",
        "belay check: {friend} is on the rope, I'm on the ground",
        "the approach to {crag} was brutal but worth it",
        "new shoes feel amazing on the slab",
        "Hannah flashed {route}, unreal",
        "anyone have a spare 60m rope for {weekday}?",
    ],
    "partner": [
        "can you grab {grocery} on the way home?",
        "thinking {food} for dinner?",
        "running {minutes} min late, sorry!",
        "did you call the {errand}?",
        "love you, see you tonight",
        "the landlord texted about the {house_thing}",
        "want to watch {show} tonight or read?",
        "booked the {trip_thing} for {place}",
        "I'm at the studio until 7",
        "Marcus left a loaf of sourdough on the porch",
        "how was the climbing?",
        "your mom called, call her back when you can",
        "date night {weekday}? I found a place with live jazz",
        "I miss you, this week is long",
        "picked up {grocery} already, don't worry",
        "the tomatoes are finally ripe",
        "can we talk tonight about {place}?",
        "walk around the lake after work?",
    ],
    "family": [
        "Mom wants to know if you're coming for {holiday}",
        "{niece} is {kid_thing}!!",
        "sending you the recipe for Mom's {food}",
        "how's the knee, Mom?",
        "did you see the photos from {holiday}?",
        "call me when you get a sec, it's about {holiday}",
        "the kids want to see Uncle Sam",
        "Andre says hi",
        "I'm on nights this week, text don't call",
        "Mom's choir concert is on {weekday}",
        "can you bring {food} on {holiday}?",
        "the garden is out of control this year",
        "proud of you mijo",
        "went to physical therapy, the knee bends to 110 now",
        "I made your {food}, not as good as yours",
    ],
    "friends": [
        "just finished {book}, you were right about the ending",
        "trivia on {weekday}?",
        "book club picked {book} for next month",
        "made {food} again, this time with {ingredient}. game changer",
        "fantasy league is a disaster this year",
        "want to ride {ride} on Saturday?",
        "Dana says we're doing a tasting menu for the wedding, send help",
        "I have a spare ticket for the jazz thing {weekday}",
        "the truck needs new brakes before {crag}",
        "bring {food}, I'll handle drinks",
        "we're still on for {weekday} right?",
        "ok that podcast episode about {project} was actually about our industry lol",
        "Marcus is teaching a knife skills class {weekday}, you in?",
        "my students asked if I know anyone who makes maps. I said my friend Sam",
    ],
    "assistant": [
        "Reminder: {reminder}",
        "Good morning Sam. Today: {n} meetings, first at {clock}.",
        "You asked me to nudge you about this: {reminder}.",
        "remind me to {todo} {when}",
        "Done, I added \u201c{todo}\u201d to your list.",
        "Your resting heart rate is {hr} this week, a bit above your usual.",
        "It's been {n} days since you called Mom.",
        "Weekly review: you closed {n} tasks and moved {n} to next week.",
        "what's on my plate tomorrow?",
        "Tomorrow: {project} review at {clock}, then 1:1 with Kenji.",
        "Weather for {crag} on {weekday}: dry, highs in the 60s.",
        "log: slept {hours} hours, felt {feeling}",
    ],
    "coop": [
        "draft budget for {month} is in the drive",
        "we need two more volunteers for the {coop_event}",
        "insurance renewal came in {small_pct}% higher than last year",
        "treasurer update: dues collected for {month}, {num3} members",
        "can we vote on the new wall by email?",
        "minutes from the last board meeting are up",
        "the setters want new holds, quote is ${num3}0",
        "reminder: board meeting {weekday} at 7pm",
        "member survey says people want more youth programs",
        "I'll draft the grant application this weekend",
    ],
}

CHAT_TAILS: dict[str, list[str]] = {
    "work": ["lmk", "will update the ticket", "thoughts?", "\U0001f440", "ty!", "(no rush)",
             "cc {colleague}", "more in the thread", "sorry for the noise", "details in the doc",
             "fwiw", "one sec", "looking into it"],
    "home": ["haha", "\u2764\ufe0f", "\U0001f602", "!!", "ok ok", "lol", "see you soon",
             "\U0001f64f", "xx", "ugh", "yay", "\U0001f60d"],
}

# conversation domain -> (chat templates, tail bank, tail probability)
DOMAIN_TAILS = {
    "eng": "work", "product": "work", "ops": "work", "social": "work", "climbing": "home",
    "partner": "home", "family": "home", "friends": "home", "assistant": "home", "coop": "work",
}

# ---------------------------------------------------------------------------------------------
# Slack channels, telegram chats, whatsapp chats, signal threads
# ---------------------------------------------------------------------------------------------

# name, domain, extra named members (the work cast is in every work channel)
CORE_SLACK_CHANNELS: list[tuple[str, str]] = [
    ("eng-atlas", "eng"), ("general", "social"), ("eng-routing", "eng"), ("ops-alerts", "ops"),
    ("random", "social"), ("product", "product"), ("oncall", "ops"), ("climbing", "climbing"),
]
SLACK_PREFIXES = ["eng", "team", "proj", "help", "ops", "cust", "social", "incident", "design",
                  "data"]
SLACK_TOPICS = [
    "tiles", "routing", "search", "billing", "ios", "android", "web", "infra", "security",
    "perf", "sync", "imports", "elevation", "geocoding", "onboarding", "growth", "payments",
    "support", "oncall", "releases", "testing", "platform", "analytics", "ml", "maps",
    "gravel", "clubs", "events", "partners", "api", "docs", "hiring", "interviews", "cost",
    "sre", "db", "kafka", "cdn", "auth", "flags", "frontend", "backend", "mobile", "qa",
    "localization", "accessibility", "privacy", "legal", "finance", "marketing", "sales",
    "emea", "apac", "latam", "bikes", "runs", "hikes", "books", "food", "music", "pets",
    "parents", "photos", "gardening", "games",
]
PREFIX_DOMAIN = {"eng": "eng", "team": "eng", "proj": "product", "help": "eng", "ops": "ops",
                 "cust": "product", "social": "social", "incident": "ops", "design": "product",
                 "data": "eng"}

# chat file stem, domain, members (names; "Sam Rivera" always takes part)
TELEGRAM_CHATS: list[tuple[str, str, list[str]]] = [
    ("maya-chen", "partner", ["Maya Chen"]),
    ("juniper-assistant", "assistant", ["Juniper"]),
    ("robert-okafor", "friends", ["Robert Okafor"]),
    ("lucia-rivera", "family", ["Lucia Rivera"]),
    ("hannah-weiss", "climbing", ["Hannah Weiss"]),
    ("granite-board", "coop", ["Jonah Fischer", "Hannah Weiss"]),
    ("book-club", "friends", ["Olivia Park", "Marcus Bell", "Maya Chen"]),
    ("marcus-bell", "friends", ["Marcus Bell"]),
]
# WhatsApp chats are named as the importer names them: after the chat, as the person wrote it
WHATSAPP_CHATS: list[tuple[str, str, list[str]]] = [
    ("Climbing crew", "climbing", ["Hannah Weiss", "Robert Okafor"]),
    ("Lucia Rivera", "family", ["Lucia Rivera"]),
]
SIGNAL_THREADS: list[tuple[str, str, list[str]]] = [
    ("elena-rivera", "family", ["Elena Rivera"]),
    ("rivera-family", "family", ["Elena Rivera", "Lucia Rivera", "Maya Chen"]),
]

# ---------------------------------------------------------------------------------------------
# Journal
# ---------------------------------------------------------------------------------------------

JOURNAL: dict[str, dict[str, list[str]]] = {
    "work": {
        "titles": ["Atlas, again", "A good day at work", "Design review", "Shipping day",
                   "1:1 thoughts", "On-call week", "Roadmap wrangling", "Small wins"],
        "lines": [
            "Long day on {project}. Tomás and I finally untangled the {bug}.",
            "Standup ran long again; I need to stop solving problems live in standup.",
            "Had my 1:1 with Priya. We talked about what staff-level scope would look like for me.",
            "Shipped {feature} to {pct}% of users and nothing caught fire.",
            "Kenji handled {incident} on his own and wrote a great postmortem. I told him so.",
            "Spent the afternoon reviewing pull requests, mostly small stuff, but it adds up.",
            "Grace wants {feature} in {month}. I think it's possible if we {eng_action} first.",
            "The design review for {project} went better than I feared. People asked good questions.",
            "Wrote the first draft of the {project} rollout plan and sent it to Priya.",
            "Deep focus morning with no meetings until noon. I got more done than all last week.",
            "Pairing with Kenji on {eng_thing} reminded me how much I like teaching.",
            "We rolled back {eng_thing} twice today. Frustrating, but the rollback path worked.",
        ],
    },
    "family": {
        "titles": ["Sunday call", "Family stuff", "Sacramento weekend", "Mom's knee",
                   "Nina and Teo", "Lucia"],
        "lines": [
            "Called Mom after dinner. The knee is getting better and she's back to bossing everyone around.",
            "Lucia sent a video of {niece} {kid_thing}. I watched it five times.",
            "Drove up to Sacramento. Mom made {food} and we ate on the porch until it got dark.",
            "Lucia and I talked about what Mom will need as she gets older. No answers yet.",
            "Mom sent three voice notes about the choir drama. I listened to all of them on the walk.",
            "Played cardboard castles with Teo for an hour. Best part of the week.",
            "Talked with Lucia about her half marathon training; she sounds happier than in years.",
        ],
    },
    "partner": {
        "titles": ["Maya", "Slow Saturday", "Date night", "Home", "Lake walk"],
        "lines": [
            "Maya and I walked around the lake after work and talked about {place}.",
            "Slow Saturday: coffee on the steps, farmers market, Maya repotting everything.",
            "Maya's studio landed a new client. I'm so proud of her.",
            "We had a small fight about dishes that was really about being busy. Made up over {food}.",
            "Romantic evening out: a walk downtown, a bookstore, late dessert. We should do that more.",
            "Maya fired a set of bowls at the ceramics studio; one of them is already my favorite.",
        ],
    },
    "climbing": {
        "titles": ["Good session", "Crag day", "Projecting", "Rest day thoughts", "Send!"],
        "lines": [
            "Session at {gym} with Hannah. Finally sent {route} ({grade}) on the fourth try.",
            "Drove to {crag} with Hannah and Bobby. Cold hands all morning, perfect friction by noon.",
            "Fell off the last move of {route} six times. I'll be back.",
            "Hannah pushed me to lead the {grade} I'd been avoiding. Shaky, but I clipped the chains.",
            "Hangboard session, short and boring and probably the most useful thing I did all week.",
            "Bobby took a big whipper at {crag} and laughed the whole way down.",
            "Climbed with Kenji at the co-op; he reads boulder problems better than I do.",
        ],
    },
    "cooking": {
        "titles": ["Kitchen notes", "Dinner party", "New recipe", "Bread day"],
        "lines": [
            "Made {food} for Maya and Marcus. Added {ingredient}, which was the right call.",
            "Marcus showed me how to shape a proper boule. My loaves look less sad now.",
            "Tried {food} from the new cookbook. Too salty, but the idea is good.",
            "Cooked a big pot of {food} for the week. Future me will be grateful.",
            "Dinner party for six: {food}, a salad, and Olivia's plum tart. Everyone stayed late.",
        ],
    },
    "health": {
        "titles": ["Sleep", "Body notes", "Health check", "Running on less"],
        "lines": [
            "Slept {hours} hours and felt {feeling} most of the day.",
            "Resting heart rate has been around {hr} all week, which usually means I'm overdoing it.",
            "Dr. Mensah wants me to try the glucose monitor for two weeks. Curious what it shows.",
            "No caffeine after noon, day {n}. Falling asleep faster, grumpier at 3pm.",
            "Stretched for twenty minutes before bed. Shoulder feels better.",
            "Rode {km} km on the bike today and felt strong on the climbs.",
        ],
    },
    "books": {
        "titles": ["Reading", "Finished a book", "Book club"],
        "lines": [
            "Finished {book}. It will stay with me for a while.",
            "Book club argued about {book} for two hours. Olivia won, as usual.",
            "Started {book} on the train; missed my stop.",
            "Re-reading {book}. Different book at this age.",
        ],
    },
    "travel": {
        "titles": ["Travel day", "On the road", "Trip notes", "Away"],
        "lines": [
            "{place}, day {n}. We walked until our feet hurt and ate everything.",
            "Flight to {place} was delayed three hours; Maya and I played cards at the gate.",
            "Back from {place}. Home feels small and cozy.",
            "Planning {place} for the spring: climbing for me, museums for Maya, food for both.",
        ],
    },
    "decisions": {
        "titles": ["Deciding", "A decision", "Crossroads", "Choosing"],
        "lines": [
            "Decided to say no to the second project Priya offered. Protecting my focus matters more.",
            "Decided to step back from leading the co-op fundraiser this year.",
            "We decided to stay in Oakland another year instead of buying in Sacramento.",
            "Decided to turn off work notifications on weekends, for real this time.",
            "Decided to train for the Mount Diablo century with Bobby.",
            "Still not sure whether to go for the staff promotion or stay close to the code.",
        ],
    },
    "friends": {
        "titles": ["Friends", "Bobby", "Good people", "Neighbors"],
        "lines": [
            "Bobby came over for {food} and we stayed up too late talking about his wedding.",
            "Trivia night with Bobby and Olivia. We lost badly on the geography round, which is embarrassing for a map person.",
            "Marcus brought over a jar of kimchi and stayed for an hour of stories from his restaurant days.",
            "Olivia showed us sketches from her new picture book. She's so good.",
            "Coffee with Jonah. He asked what I'd do if I weren't afraid of failing. I didn't have an answer.",
        ],
    },
}
JOURNAL_CLOSERS = ["Grateful for {gratitude}.", "Feeling {feeling}.", "Tomorrow: {todo}.",
                   "Small thing that helped: {gratitude}.", "Energy: {feeling}.", ""]
JOURNAL_LOCATIONS = ["Oakland, CA", "Oakland, CA", "Oakland, CA", "Berkeley, CA",
                     "Sacramento, CA", "San Francisco, CA", "Bishop, CA", "Lisbon, Portugal",
                     "Kyoto, Japan", "Tahoe, CA"]

# ---------------------------------------------------------------------------------------------
# Records: email, events, check-ins, experiments, identity, podcasts, interviews
# ---------------------------------------------------------------------------------------------

EMAIL_CATALOGS = {
    "work": [
        ("Priya Natarajan <priya@fernhillmaps.com>", "Atlas migration: go/no-go for {month}",
         "Priya asks for a go/no-go on the {month} Atlas cutover and a list of open risks.",
         ["atlas", "decision"]),
        ("Grace O'Neill <grace@fernhillmaps.com>", "{feature} launch checklist",
         "Grace shares the launch checklist for {feature}; eng sign-off needed by {weekday}.",
         ["launch", "product"]),
        ("Tomás Herrera <tomas@fernhillmaps.com>", "Postmortem: {incident}",
         "Tomás circulates the postmortem for {incident}; three action items assigned to Sam.",
         ["incident", "postmortem"]),
        ("People Team <people@fernhillmaps.com>", "Your mid-year review is ready",
         "The mid-year review summary is available; includes Priya's staff engineer nomination.",
         ["career", "review"]),
        ("Kenji Watanabe <kenji@fernhillmaps.com>", "Design doc draft: {eng_thing}",
         "Kenji asks for feedback on his first design doc, about {eng_thing}.",
         ["mentoring", "design"]),
        ("Priya Natarajan <priya@fernhillmaps.com>", "Q{quarter} planning inputs",
         "Priya asks each lead for headcount needs and top three bets for next quarter.",
         ["planning"]),
    ],
    "personal": [
        ("Lucia Rivera <lucia.rivera@example.com>", "{holiday} plans",
         "Lucia proposes hosting {holiday} in Sacramento and asks Sam to bring {food}.",
         ["family", "holidays"]),
        ("Robert Okafor <bobby.okafor@example.com>", "Save the date!",
         "Bobby and Dana's wedding save-the-date; Sam asked to be a groomsman.",
         ["friends", "wedding"]),
        ("Granite Climbing Co-op <board@granitecoop.org>", "Board packet for {month}",
         "Jonah sends the board packet: budget, wall proposal, insurance renewal.",
         ["coop", "board"]),
        ("Olivia Park <liv.park@example.com>", "Book club: {book}",
         "Olivia announces {book} for next month and hosts at her place.",
         ["books", "friends"]),
        ("Rockridge Clinic <noreply@rockridgeclinic.org>", "Your lab results are available",
         "Lab results from Dr. Amara Mensah's office: LDL slightly high, everything else normal.",
         ["health"]),
    ],
    "travel": [
        ("TAP Air Portugal <booking@flytap.example>", "Your trip to Lisbon",
         "Flight confirmation SFO to Lisbon for Sam and Maya; seats 23A and 23B.",
         ["travel", "lisbon"]),
        ("Kyoto Machiya Stays <stay@machiya.example>", "Reservation confirmed",
         "Five nights in a machiya townhouse in Kyoto for the October trip.",
         ["travel", "kyoto"]),
        ("Recreation.gov <noreply@recreation.example>", "Campsite reservation: {crag}",
         "Two-night campsite reservation near {crag} for the climbing trip.",
         ["travel", "climbing"]),
    ],
    "finance": [
        ("Bay Credit Union <alerts@baycu.example>", "Statement ready for {month}",
         "Monthly statement available; rent, groceries and the co-op dues are the big items.",
         ["finance"]),
        ("Franchise Tax Board <ftb@example.gov>", "Tax refund processed",
         "State tax refund processed and deposited.", ["finance", "taxes"]),
        ("Landlord - Ortiz Properties <ortiz@example.com>", "Lease renewal",
         "Lease renewal offer with a 4% increase; reply by the end of {month}.",
         ["home", "decision"]),
    ],
}

EVENTS = [
    ("Bouldering at {gym}", "{gym}, Oakland", ["Hannah Weiss"],
     "Evening session at {gym}; Hannah finally sent the roof problem."),
    ("Climbing trip to {crag}", "{crag}", ["Hannah Weiss", "Robert Okafor"],
     "Weekend at {crag}: cold mornings, good friction, one stuck rope."),
    ("Dinner party at home", "Oakland, CA", ["Maya Chen", "Marcus Bell", "Olivia Park"],
     "Made {food}; Olivia brought a plum tart. Candles and too much wine."),
    ("Sunday in Sacramento", "Sacramento, CA", ["Elena Rivera", "Lucia Rivera"],
     "Lunch at Mom's; Nina and Teo ran through the sprinklers."),
    ("Lake Merritt walk", "Lake Merritt, Oakland", ["Maya Chen"],
     "Golden hour walk around the lake; herons and a very confident goose."),
    ("Team offsite", "Half Moon Bay, CA", ["Priya Natarajan", "Tomás Herrera", "Kenji Watanabe",
                                           "Grace O'Neill"],
     "Fernhill engineering offsite; planning {project} and a windy beach walk."),
    ("Ride up {ride}", "East Bay hills", ["Robert Okafor"],
     "Rode {ride} with Bobby; {km} km, fog at the top."),
    ("Ceramics open studio", "Berkeley, CA", ["Maya Chen"],
     "Maya's open studio day; she sold half her bowls."),
    ("Co-op gear swap", "Granite Co-op, Oakland", ["Jonah Fischer", "Hannah Weiss"],
     "Annual gear swap at the co-op; Sam ran the cash box."),
    ("Book club", "Olivia's place", ["Olivia Park", "Maya Chen", "Marcus Bell"],
     "Book club on {book}; long argument about the ending."),
    ("Farmers market", "Grand Lake, Oakland", ["Maya Chen"],
     "Saturday market: peaches, tomatoes, a bunch of dahlias."),
    ("Nina's birthday", "Sacramento, CA", ["Lucia Rivera", "Elena Rivera"],
     "Nina's birthday party with a unicorn cake and a bouncy castle."),
    ("Trip to {place}", "{place}", ["Maya Chen"],
     "Photos from {place}: markets, tiles, a lot of stairs."),
]

CHECKIN_NOTES = [
    "Good sleep, clear head.", "Woke up at 4am thinking about {project}.",
    "Climbing tonight, looking forward to it.", "Slow morning, better afternoon.",
    "Sore from the session yesterday.", "Long meeting day.", "Calm. Walked to the lake.",
    "Headache after too much coffee.", "Good talk with Maya last night.",
    "Restless, couldn't settle into focus.", "Felt strong on the bike.",
    "Missed the gym, worked late.", "Mom called, she's doing well.", "Quiet and {feeling}.",
    "Ate late, slept badly.", "Great day, shipped {feature}.",
]

EXPERIMENTS = [
    ("No caffeine after noon", "Cutting caffeine after noon will improve sleep score by 5+ points.",
     "Last coffee before 12:00 every day; track Garmin sleep score and time to fall asleep.",
     "Sleep score up 6 points on average; fell asleep about 15 minutes faster.", "completed"),
    ("Two-week CGM trial", "Late dinners spike glucose more than the same meal at noon.",
     "Wear a CGM for 14 days (suggested by Dr. Amara Mensah); log every meal; compare lunch "
     "and dinner spikes.",
     "Dinner spikes were about 30 mg/dL higher; walking after dinner cut them in half.",
     "completed"),
    ("Phone out of the bedroom", "Charging the phone in the kitchen reduces late-night scrolling.",
     "Phone charges in the kitchen; paper book in bed; 30 days.",
     "Read 4 books in a month; fell asleep earlier on most nights.", "completed"),
    ("Hangboard protocol", "Twice-weekly hangboard sessions improve max hang by 10%.",
     "7s on / 3s off repeaters, 6 sets, Monday and Thursday, 8 weeks.",
     "Max hang improved 8%; left pinky pulley felt tweaky in week 6.", "completed"),
    ("Morning pages", "Writing three pages each morning reduces anxiety before work.",
     "Three handwritten pages before opening the laptop, 21 days.",
     "Helped on meeting-heavy days; skipped most weekends.", "abandoned"),
    ("Meatless weekdays", "Vegetarian weekdays improve LDL at the next lab test.",
     "No meat Monday to Friday; track meals in the journal.", "", "active"),
    ("Walk after dinner", "A 15-minute walk after dinner flattens the glucose curve.",
     "Walk at least 15 minutes within half an hour of dinner, 30 days.",
     "Consistent: smaller dinner spikes and better sleep scores.", "completed"),
    ("No meetings before 11", "Protected mornings double deep-work hours.",
     "Decline meetings before 11:00; count focused hours in the calendar.", "", "planned"),
]

QUOTES = [
    ("I'd rather ship something small and true than something big and pretend.",
     "Said in the Atlas retro", "conversation"),
    ("The map is not the territory, but a good map gets you home.",
     "Talking with Kenji about docs", "conversation"),
    ("Rest is part of the training, not a break from it.", "Journal, after a rest week",
     "journal"),
    ("Every good decision I've made started with a walk.", "Interview session", "interview"),
    ("Family is the group chat you can't mute.", "Joke at Thanksgiving", "conversation"),
    ("If I can't explain it to Maya at dinner, I don't understand it yet.",
     "On writing design docs", "interview"),
    ("Slow is smooth and smooth is fast, on rock and in code.", "Climbing with Hannah",
     "conversation"),
    ("Most of leadership is remembering what you promised.", "Coffee with Jonah",
     "conversation"),
    ("Cook for people you love; it says what you can't.", "Dinner party", "journal"),
    ("Tired hands, quiet head: a good day.", "After a crag day", "journal"),
    ("The bug is never where you're looking; it's where you're certain.", "Slack, #eng-atlas",
     "slack"),
    ("Say the hard thing kindly, and early.", "1:1 notes", "journal"),
]

OBSERVATIONS = [
    ("Sam does his best thinking while walking or cycling, rarely at a desk.", "habits",
     "Most decisions in the journal start with a walk or ride."),
    ("Sam overcommits in the spring and pulls back in the fall.", "work",
     "Calendar density and journal tone across two years."),
    ("Sam's sleep drops for two nights after any on-call page.", "health",
     "Garmin sleep scores around on-call weeks."),
    ("Sam goes quiet instead of asking for help when a project slips.", "work",
     "Priya's feedback in two reviews; journal entries about Atlas."),
    ("Sam is most relaxed in the kitchen with other people around.", "relationships",
     "Dinner party events and journal mood."),
    ("Sam calls his mother more often when work is hard.", "relationships",
     "Signal thread frequency versus work journal entries."),
    ("Climbing days correlate with better mood the next day.", "health",
     "Check-in mood after climbing events."),
    ("Sam writes clearer docs after talking the problem through with Tomás.", "work",
     "Design doc revisions after pairing sessions."),
    ("Sam's spending on books goes up when he's anxious.", "habits",
     "Card statements and journal tone."),
    ("Sam postpones decisions about money until Maya brings them up.", "relationships",
     "Lease and savings conversations."),
]

STORIES = [
    ("The stuck rope at {crag}", ["Hannah Weiss", "Robert Okafor"],
     "Our rope jammed in a crack on the rappel at {crag} with the light fading. Bobby cracked "
     "jokes, Hannah climbed back up to free it, and I held the headlamp and tried to look calm. "
     "We got down in the dark and ate cold burritos in the truck, laughing."),
    ("How I met Maya", ["Maya Chen"],
     "We met at a friend's potluck where I brought {food} that nobody touched except her. She "
     "asked for the recipe and I admitted it was my mom's. Six years later she makes it better "
     "than I do."),
    ("Mom's knee surgery", ["Elena Rivera", "Lucia Rivera"],
     "Lucia and I took turns staying with Mom after the surgery. She insisted on cooking from a "
     "chair. I learned more about her childhood in those two weeks than in the ten years "
     "before."),
    ("The Atlas outage", ["Tomás Herrera", "Priya Natarajan"],
     "At 2am the tile cache fell over and took routing with it. Tomás and I were on a call "
     "until sunrise. Priya showed up with coffee at 7 and said nothing about blame, only "
     "about what we'd learned."),
    ("Teaching Kenji to lead a review", ["Kenji Watanabe"],
     "Kenji was nervous about running his first design review. We rehearsed the hard "
     "questions over lunch. He handled the toughest one better than I would have."),
    ("Marcus and the pasta", ["Marcus Bell"],
     "Marcus knocked on the door with a bag of flour and eggs and said it was time. Three hours "
     "later we had a kitchen covered in flour and the best tagliatelle I've eaten."),
    ("Becoming treasurer", ["Jonah Fischer"],
     "Jonah asked me to be treasurer of the co-op because 'you like spreadsheets and you don't "
     "lie.' I said yes before thinking. It's been one of the best things I did this year."),
    ("Bobby's proposal", ["Robert Okafor"],
     "Bobby asked me to help him hide a ring in a climbing chalk bag. Dana found it on the "
     "first move and said yes before he could kneel."),
    ("Olivia's book launch", ["Olivia Park", "Maya Chen"],
     "Olivia read her picture book to a room full of kids and cried at the last page. Maya "
     "bought five copies."),
    ("The annual physical", ["Amara Mensah"],
     "Dr. Mensah listened to my whole list of worries without looking at the clock once. Then "
     "she said the numbers were fine and the real issue was sleep. She was right; the sleep "
     "experiments started that week."),
    ("Grace's user interview", ["Grace O'Neill"],
     "Grace brought a retired cyclist to the office who plans routes on paper maps. He showed "
     "us why offline maps mattered more than any metric."),
]

PODCAST_EPISODES = [
    ("The cost of context switching", "Every interruption costs about twenty minutes of ramp-up.",
     ["Batch shallow work", "Protect two-hour blocks", "Make status async"]),
    ("Sleep and performance", "Consistency of sleep timing matters as much as duration.",
     ["Same wake time daily", "Morning light", "Cool dark room"]),
    ("Fermentation basics", "Salt, time and temperature do most of the work.",
     ["2% salt by weight", "Keep it submerged", "Taste daily"]),
    ("Postgres at scale", "Most scaling problems are missing indexes and unbounded queries.",
     ["Read the query plan", "Partition by time", "Keep transactions short"]),
    ("Climbing and fear", "Fear of falling is trained down by practicing falls.",
     ["Take practice falls", "Breathe at the clip", "Commit to the move"]),
    ("Managing up", "Your manager wants fewer surprises, not more updates.",
     ["Share risks early", "Bring a recommendation", "Write it down"]),
    ("Glucose and energy", "Post-meal walks blunt glucose spikes.",
     ["Walk after meals", "Protein first", "Watch liquid sugar"]),
    ("Writing design docs", "A design doc is a tool for thinking, not a deliverable.",
     ["State the non-goals", "List alternatives", "Keep it short"]),
    ("The economics of maps", "Map data is cheap to copy and expensive to keep fresh.",
     ["Freshness is the moat", "Community edits scale", "Offline matters"]),
    ("Aging parents", "Start the hard conversations before a crisis.",
     ["Talk early", "Share the load with siblings", "Write down wishes"]),
    ("Attention and reading", "Deep reading is a skill that fades without practice.",
     ["Read on paper", "Schedule reading", "Stop half-reading"]),
    ("Mentoring engineers", "Good mentors ask more questions than they answer.",
     ["Ask before telling", "Celebrate small wins", "Give real work"]),
]

INTERVIEW_TOPICS = [
    ("values", "What matters to Sam and why", [
        ("What do you value most in a friendship?",
         "Showing up. Bobby drove four hours when my dad's shop closed. I'd do the same."),
        ("When do you feel most like yourself?",
         "On a long ride with nothing to fix. Or cooking with Maya on a Sunday."),
        ("What's a belief you've changed your mind about?",
         "I used to think working more was how you proved you cared. I don't anymore."),
        ("What would you like to be known for?", "Making things that last and people feel safe around."),
    ]),
    ("work", "Career, craft and leadership", [
        ("What kind of engineer do you want to be in five years?",
         "Someone who makes hard systems boring. Staff, probably, but close to the code."),
        ("What was the hardest project of the year?",
         "Atlas. Not the tech, the coordination: six teams, one cutover window."),
        ("How do you handle disagreement with your manager?",
         "I write my case down, send it early, and then commit once we decide."),
        ("What do you enjoy about mentoring?",
         "Watching Kenji do something I taught him, better than I do it."),
    ]),
    ("family", "Family history and relationships", [
        ("What did you learn from your mother?",
         "Patience, chemistry jokes and how to make mole from scratch."),
        ("How is your relationship with Lucia?",
         "She's the organizer, I'm the fixer. We argue about Mom's care and then do it together."),
        ("What do you want your home to feel like?", "Loud dinners, quiet mornings."),
    ]),
    ("health", "Body, sleep and habits", [
        ("What changed after the sleep experiments?",
         "I stopped coffee after noon. It was annoying for a week and then it just worked."),
        ("What does climbing give you?",
         "A problem that only exists in the present. My head goes quiet."),
        ("How do you know you're overdoing it?",
         "Resting heart rate creeps up and I stop cooking. That's the tell."),
    ]),
    ("decisions", "How Sam makes big decisions", [
        ("How did you decide to stay in Oakland?",
         "We made a list, then threw it away and took a walk. The walk decided."),
        ("What's a decision you regret?", "Not visiting my dad more in his last year."),
        ("How do you decide what to say no to?",
         "If it doesn't help the team or my people, it waits."),
    ]),
]

VOICE_TOPICS = [
    ("idea for offline maps", [
        "Okay, idea while biking home. Offline maps could prefetch tiles along a planned route.",
        "Not the whole region, just a corridor, maybe two kilometers wide.",
        "Ask Tomás if the tile cache can serve corridor bundles. Ask Grace if users would get it.",
    ]),
    ("grocery list", [
        "Grocery list: limes, cilantro, coffee beans, the good bread.",
        "Also chicken thighs for adobo and a big bag of rice.",
    ]),
    ("thoughts after the crag", [
        "Driving back from the crag. Good day. Hannah led everything hard, I followed clean.",
        "I want to lead the crack next time. Practice gear placements at the co-op.",
        "Remember to wash the rope, it's full of sand.",
    ]),
    ("note for the board meeting", [
        "For the board meeting: insurance is up again, we need a plan before the renewal.",
        "Jonah wants a three-year budget. I'll do a simple version first.",
        "Also the setters need new holds, that's probably two thousand dollars.",
    ]),
    ("birthday gift ideas for Maya", [
        "Gift ideas for Maya: a pottery wheel class, the glaze book, a weekend in Mendocino.",
        "Maybe a dinner somewhere special. Ask Marcus for restaurant ideas.",
    ]),
    ("1:1 prep for Kenji", [
        "Prep for Kenji's one on one. He did great on call. Tell him specifically.",
        "Talk about the design doc. Suggest he runs the next review.",
    ]),
    ("reflection on the week", [
        "End of the week. Too many meetings, not enough building.",
        "Next week: block mornings, say no to the reporting thing.",
        "Call Mom on Sunday. And Lucia about the holidays.",
    ]),
]

MEETING_KINDS = [
    ("Atlas weekly sync", ["Priya Natarajan", "Tomás Herrera", "Kenji Watanabe"],
     "Status of the Atlas migration, risks, and next steps."),
    ("1:1 Priya / Sam", ["Priya Natarajan"], "Career, priorities and the Atlas timeline."),
    ("1:1 Sam / Kenji", ["Kenji Watanabe"], "Kenji's growth, on-call and the design doc."),
    ("Routefinder v2 design review", ["Tomás Herrera", "Grace O'Neill", "Kenji Watanabe"],
     "Review of the Routefinder v2 design: graph partitioning and rollout."),
    ("Offline maps planning", ["Grace O'Neill", "Tomás Herrera"],
     "Scope and timeline for offline maps."),
    ("Incident review", ["Tomás Herrera", "Priya Natarajan", "Kenji Watanabe"],
     "Timeline and action items for {incident}."),
    ("Sprint planning", ["Grace O'Neill", "Tomás Herrera", "Kenji Watanabe"],
     "Sprint goals, capacity and carry-over."),
    ("Granite Co-op board meeting", ["Jonah Fischer", "Hannah Weiss"],
     "Budget, insurance renewal and the new bouldering wall."),
]
MEETING_LINES = [
    "So the main thing this week is {project}; we're about {pct}% through.",
    "I can take that one.", "Let's timebox this to ten minutes.",
    "The risk I see is {eng_thing}; if it slips, everything slips.",
    "Can we get a decision on {feature} today?", "I'll write it up after the call.",
    "What would it take to {eng_action} this sprint?",
    "I disagree a little: we should {eng_action} first.",
    "{attendee}, do you want to walk us through the numbers?",
    "{attendee}, what do you think?", "Sorry, {attendee}, go ahead.",
    "The {bug} is fixed, but we don't have a regression test yet.",
    "Customers keep asking about {feature}.",
    "Budget-wise we're fine until {month}.",
    "Let's make sure someone owns the follow-up.",
    "Good point. Let's park that and come back to it.",
    "The latency numbers are better: p99 is down to {ms2} milliseconds.",
    "I talked to {colleague} about it yesterday and they're on board.",
    "Action item: {eng_action}, owner is Sam.", "Any blockers?",
    "Thanks everyone, that was useful.",
]

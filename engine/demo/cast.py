"""Who is in the demo data root (see :mod:`engine.demo`): Sam Rivera, his employer, home and
time zone; the thirteen people of ``profile/relationships.json``, with their aliases, notes,
interests and milestones; and the first and last names of generated coworkers. The other text
tables and the writers name people from here. The vocabulary rules of engine/demo/word_banks.py hold here too."""

from __future__ import annotations

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

"""What is said aloud in the demo data root: podcast episodes, interview topics with their
questions and answers, voice memo topics, meeting kinds and meeting lines (written by
engine/demo/documents.py and records.py). Templates hold ``{slot}``s that
:func:`engine.demo.word_banks.fill` fills. The vocabulary rules of engine/demo/word_banks.py hold here too."""

from __future__ import annotations

# ---------------------------------------------------------------------------------------------
# Podcasts, interviews, voice memos, meetings
# ---------------------------------------------------------------------------------------------

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

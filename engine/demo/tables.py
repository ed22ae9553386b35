"""Content banks of the longer demo documents (data tables)."""

from __future__ import annotations

_JOURNAL_WEIGHTS = {"work": 0.24, "family": 0.11, "partner": 0.12, "climbing": 0.14,
                    "cooking": 0.08, "health": 0.08, "books": 0.06, "travel": 0.05,
                    "decisions": 0.05, "friends": 0.07}

_ENTITY_RECENT = {
    "home": ["{name} and Sam cooked {food} together on a Sunday.",
             "{name} booked the {trip_thing} for {place}.",
             "Walk around the lake with {name}; talked about {place}."],
    "family": ["{name} called about {holiday}.", "Sent {name} photos from {place}.",
               "{name} shared news about {niece}, who is {kid_thing}."],
    "friends": ["Climbed at {crag} with {name}.", "{name} recommended {book}.",
                "Dinner with {name}: {food}."],
    "work": ["Worked with {name} on {project}.", "{name} reviewed the plan for {feature}.",
             "1:1 with {name} about {project}."],
    "health": ["Appointment with {name}; discussed sleep and the CGM trial.",
               "{name}'s office sent lab results."],
    "coop": ["Coffee with {name}; talked about {coop_event}.",
             "{name} chaired the board meeting; insurance renewal discussed."],
}

_ENTITY_PROJECTS = [
    ("Atlas migration", "Moving tile serving and routing onto the Atlas platform. Sam owns the "
                        "rollout plan; Tomás leads the tile cache cutover."),
    ("Routefinder v2", "Rewrite of the route planner around a partitioned road graph."),
    ("Offline maps", "Downloadable map regions for riders without signal; Grace is the PM."),
    ("Billing revamp", "Replacing the billing worker and fixing the double-charge edge case."),
    ("Co-op bouldering wall", "New bouldering wall at the Granite Co-op, approved by members."),
    ("Kitchen renovation ideas", "Sam and Maya's wish list for the kitchen, if they ever buy."),
]
_ENTITY_TOPICS = [
    ("Climbing", "Sam's main sport: bouldering at the co-op twice a week, trad trips with "
                 "Hannah and Bobby."),
    ("Cooking", "Sunday cooking, sourdough with Marcus, dinner parties for friends."),
    ("Sleep", "Experiments with caffeine timing, phone out of the bedroom, sleep scores."),
    ("Reading", "Book club with Olivia; mostly fiction, some systems thinking."),
    ("Cycling", "Weekend rides in the East Bay hills, training for the Diablo century."),
    ("Career", "Staff-engineer track, mentoring Kenji, protecting focus time."),
]
_CODENAMES = ["Heron", "Juniper", "Cormorant", "Manzanita", "Osprey", "Sequoia", "Tern",
              "Buckeye", "Kestrel", "Madrone", "Plover", "Yarrow"]
_PROJECT_STATUS = ["On track; {pct}% done. Next milestone in {month}.",
                   "At risk: blocked on {eng_thing}. Escalated to Priya.",
                   "Paused until {project} lands.", "Shipped in {month}; cleanup remaining."]
_RISKS = ["{eng_thing} may not scale past {rps} rps", "key people out in {month}",
          "the {bug} could come back", "scope creep from {feature}",
          "dependency on {eng_thing}"]
_TOPIC_WHY = ["It keeps Sam sane when work is loud. Mentioned in most good weeks.",
              "A thread through the year: shows up in the journal, chats and check-ins.",
              "Sam wants to get better at it deliberately, not just by accident."]
_TOPIC_RELATED = ["People: {friend}", "Book: {book}", "Place: {crag}", "Place: {place}",
                  "Habit: {todo}", "Podcast: {podcast}"]
_QUOTE_CONTEXTS = ["Repeated to {friend} over coffee", "Said again in a 1:1 with Kenji",
                   "Written on a sticky note above the desk", "Told Maya on a walk",
                   "Quoted back by {colleague}"]
_STORY_CODAS = ["{friend} still brings it up every time we see each other.",
                "I told the story again at dinner and Maya corrected half of it.",
                "Funny how different it looks a year later."]
_PODCAST_REACTIONS = ["Made me rethink how I run {project}.", "Sent it to {friend}.",
                      "Listened on the ride up {ride}.", "Good one for the Atlas team.",
                      "Want to try this with Kenji.", "Mostly agree, a bit too neat."]
_MEETING_OUTCOMES = ["Decision: {eng_action} first.", "Owner for follow-ups: Sam.",
                     "Next check-in {weekday}.", "Open question: what about {feature}?",
                     "Agreed to revisit in {month}."]
_VOICE_EXTRAS = ["Oh, and remind me to {todo}.", "Also: call Mom on {weekday}.",
                 "Note to self: ask {colleague} about {eng_thing}."]
_TRANSCRIPT_INTROS = ["We started with coffee and a few warm-up questions about the week.",
                      "Sam had just come back from {crag}, so we began with climbing.",
                      "A slower session; Sam was reflective after a long week on {project}."]
_TRANSCRIPT_FOLLOWUPS = ["Can you give an example from this year?",
                         "How did Maya react to that?", "Has that changed since last year?",
                         "What would Bobby say about that?", "Where does that come from?"]
_TRANSCRIPT_REPLIES = ["The clearest example is {project}. I learned it the hard way.",
                       "Honestly, it came from my mom. She modeled it without saying it.",
                       "It's changed a lot. A year ago I would have said the opposite.",
                       "Bobby would laugh and say I'm overthinking it. He'd be right.",
                       "Probably from climbing: you learn to commit to the next move."]
_BOARD_FINANCE = ["Dues income steady at {num3} members. Insurance renewal up {small_pct}%; reserve "
                  "covers four months of operations.",
                  "Revenue ahead of budget thanks to the {coop_event}. Hold budget request: "
                  "${num3}0.",
                  "Cash flow tight this month; proposed delaying the hold order to {month}."]
_BOARD_DISCUSSION = ["Members asked for more youth programs.",
                     "Setters want a second reset night per month.",
                     "The new bouldering wall quote came in higher than expected.",
                     "Discussed the {coop_event} schedule and volunteer gaps.",
                     "Jonah raised a succession plan for the chair role."]
_BOARD_DECISIONS = ["Approved the {coop_event} budget.", "Renew insurance with the current carrier.",
                    "Start fundraising for the new wall in {month}.",
                    "Raise day-pass prices by $2.", "Table the succession plan until {month}."]
_BOARD_ACTIONS = ["Sam: update the three-year budget.", "Jonah: call the insurance broker.",
                  "Hannah: recruit volunteers for the {coop_event}.",
                  "Sam: send dues reminders.", "Jonah: draft the grant application."]
_SERVICES = [
    ("tile-cache", "Serves vector map tiles from a two-tier cache in front of the renderer."),
    ("geocoder", "Turns place names into coordinates; backed by the search indexer."),
    ("route-planner", "Computes bike routes over the partitioned road graph."),
    ("elevation-service", "Elevation profiles and grade per route segment."),
    ("billing-worker", "Processes subscription renewals and refunds from the queue."),
    ("sync-api", "Syncs routes and rides between the apps and the backend."),
    ("search-indexer", "Keeps the place and route search index fresh."),
    ("auth-proxy", "Terminates sessions and issues internal tokens."),
]
_MODULES = ["cache/warmer: prefetches popular tiles every {minutes} minutes",
            "api/handlers: HTTP handlers, one file per endpoint",
            "graph/partition: splits the road graph by region",
            "queue/consumer: the Kafka consumer with retry and dead-letter",
            "store/postgres: all SQL lives here", "metrics: p50/p99 histograms per route",
            "flags: feature flag lookups with a local cache"]
_GOTCHAS = ["Restarting during the cache warm-up causes a thundering herd; wait {minutes} "
            "minutes.", "Timezone handling is in UTC everywhere except the legacy exports.",
            "The retry budget is shared with {eng_thing}; a storm there starves this service.",
            "Migrations must be backwards compatible for one release."]
_WORK_MEMORY = [
    ("Atlas context", [("Why Atlas", "The old monolith cannot scale tiles past {rps} rps."),
                       ("Who decides", "Priya signs off; Tomás owns the tile cache; Sam owns "
                                       "the rollout."),
                       ("History", "Two earlier attempts stalled on {eng_thing}.")]),
    ("Team norms", [("Meetings", "No meetings before 11 on Tuesdays and Thursdays."),
                    ("Reviews", "Small PRs, reviewed within a day. Kenji is the fastest."),
                    ("On-call", "Weekly rotation; handoff notes in #oncall.")]),
    ("Stakeholders", [("Product", "Grace O'Neill, route planning; cares about {feature}."),
                      ("Leadership", "Priya Natarajan; wants fewer surprises, early risks."),
                      ("Support", "Escalations about {feature} go to Sam's team.")]),
    ("On-call lessons", [("Top alerts", "{eng_thing} latency, disk on the replica, queue "
                                         "depth."),
                         ("What helps", "Runbooks that start with the rollback."),
                         ("What hurts", "Alerts without owners; the {bug}.")]),
    ("Quarterly priorities", [("Now", "{project}; then {feature}."),
                              ("Next", "Cost work on {eng_thing}."),
                              ("Not now", "Rewriting the Android build.")]),
    ("Hiring loop", [("Stages", "Recruiter screen, pairing exercise, system design, values."),
                     ("Sam's role", "System design interviewer; calibrates with Tomás.")]),
    ("Release process", [("Cadence", "Weekly mobile releases, daily backend deploys."),
                         ("Freezes", "No deploys Friday afternoon or during {holiday}.")]),
    ("Offline maps background", [("Users", "{user_need}."),
                                 ("Constraints", "Storage on phones; tile licensing.")]),
    ("Career notes", [("Staff scope", "Priya's bar: lead across teams, write the strategy."),
                      ("Feedback", "Speak up earlier when a project slips.")]),
    ("Routing team history", [("Origins", "Started as two people and a weekend prototype."),
                              ("Today", "Tomás leads; five engineers; owns {eng_thing}.")]),
]
_WORK_MEMORY_INTROS = ["Working context for Sam at Fernhill Maps, kept current by hand.",
                       "Notes to future Sam: what matters here and why.",
                       "Context that never fits in a ticket. Updated after {project} reviews."]
_SCRATCH_TODAY = ["Review Kenji's PR on {eng_thing}", "Draft the {project} update",
                  "1:1 with Priya at {clock}", "Fix the {bug}", "Reply to Jonah about the budget",
                  "Book the {trip_thing} for {place}", "Climb at {gym}", "Call Mom"]
_SCRATCH_NOTES = ["Idea: {eng_action} in {eng_thing}. Ask Tomás.",
                  "Meeting went long; need to say no to the reporting thing.",
                  "Feeling {feeling}. Walk at lunch helped.",
                  "Numbers for {feature}: {pct}% adoption so far."]
_WEEK_WINS = ["Shipped {feature} to {pct}%", "Kenji ran his first review",
              "Climbed {route} ({grade})", "Cooked {food} for friends",
              "Finished {book}", "Closed the {bug}"]
_WEEK_MISSES = ["Skipped two climbing sessions", "Too many meetings on {weekday}",
                "Didn't call Mom", "Let the {project} doc slip", "Slept badly after on-call"]

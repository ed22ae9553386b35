"""Text of the demo data root's small record sources (written by engine/demo/records.py): journal
entries (titles and lines per topic, closers, locations), email catalogs, events, check-in
notes, experiments, quotes, observations and stories. Templates hold ``{slot}``s that
:func:`engine.demo.word_banks.fill` fills. The vocabulary rules of engine/demo/word_banks.py hold here too."""

from __future__ import annotations

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
# Records: email, events, check-ins, experiments, identity, stories
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

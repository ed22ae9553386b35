"""The timeline screen and the conversation view, driven by keys on the indexed demo root."""
from __future__ import annotations

from datetime import date

from engine.config import load_config
from engine.dates.timerange import TimeRange
from engine.library import Library
from tests.app.conftest import aio, make_app, ready, search, timeline_loaded, wait_for
from tui.screens.conversation import ConversationScreen
from tui.screens.jump import JumpScreen
from tui.screens.viewer import FileViewerScreen
from tui.widgets.facets import FacetList

SIZE = (120, 40)




async def conversation_loaded(pilot) -> ConversationScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ConversationScreen)
                   and pilot.app.screen.loaded, what="the conversation")
    await pilot.pause()
    return pilot.app.screen


async def conversation_of_a_middle_window(pilot, root) -> ConversationScreen:
    """The conversation view opened at a June window of the demo's busiest Slack log, with
    older and newer messages on either side."""
    window = Library(load_config(root)).timeline("2026-06", ["slack"], 500)
    middle = next(it for d in window.days for g in d.groups for it in g.items
                  if it.source_file.endswith("general.jsonl"))
    await ready(pilot)
    pilot.app.push_screen(ConversationScreen(middle.id))
    return await conversation_loaded(pilot)


async def result_highlighted(pilot, query: str, wanted) -> tuple[int, object]:
    """Search ``query`` and put the cursor on the first result ``wanted`` accepts."""
    await search(pilot, query)
    results = pilot.app.main.results
    at, found = next((i, r) for i, r in enumerate(results.results) if wanted(r))
    results.focus()
    results.highlighted = at
    await pilot.pause()
    return at, found


def shown(screen) -> TimeRange:
    return screen.timeline.range


@aio
async def test_f5_opens_this_week_and_keys_move_by_day_week_and_month(demo_root):
    library = Library(load_config(demo_root))
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("escape", "f5")
        tl = await timeline_loaded(pilot)
        week = TimeRange(date(2026, 11, 30), date(2026, 12, 6))
        assert shown(tl) == week and tl.timeline.total == library.timeline(week).total > 0
        assert {it.content_date for it in tl.items} <= {"2026-11-30", "2026-12-01"}
        await pilot.press("right_square_bracket")
        tl = await timeline_loaded(pilot)
        assert shown(tl) == TimeRange(date(2026, 12, 1), date(2026, 12, 1))
        await pilot.press("left_curly_bracket")
        tl = await timeline_loaded(pilot)
        assert shown(tl) == TimeRange(date(2026, 11, 23), date(2026, 11, 29))
        await pilot.press("less_than_sign")
        tl = await timeline_loaded(pilot)
        assert shown(tl) == TimeRange(date(2026, 10, 1), date(2026, 10, 31))
        assert tl.timeline.total == library.timeline("2026-10").total > 100
        await pilot.press("greater_than_sign", "greater_than_sign")
        tl = await timeline_loaded(pilot)
        assert shown(tl).since == date(2026, 12, 1)
        await pilot.press("t")
        tl = await timeline_loaded(pilot)
        assert shown(tl) == TimeRange(date(2026, 11, 30), date(2026, 11, 30))


@aio
async def test_go_to_a_phrase_on_this_day_and_one_source(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("escape", "f5")
        await timeline_loaded(pilot)
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, JumpScreen), what="the prompt")
        await pilot.press(*"last month", "enter")
        tl = await timeline_loaded(pilot)
        assert shown(tl) == TimeRange(date(2026, 10, 1), date(2026, 10, 31))
        assert tl.phrase == "last month"
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, JumpScreen), what="the prompt")
        await pilot.press("ctrl+u", *"march on", "enter")  # not a date: said, view kept
        await wait_for(pilot, lambda: any("not a date" in n[1] for n in app.notes),
                       what="the refusal")
        tl = await timeline_loaded(pilot)
        assert shown(tl) == TimeRange(date(2026, 10, 1), date(2026, 10, 31))
        await pilot.press("right_square_bracket")  # moves on from the range shown
        tl = await timeline_loaded(pilot)
        assert shown(tl) == TimeRange(date(2026, 10, 2), date(2026, 10, 2))
        await pilot.press("o")
        tl = await timeline_loaded(pilot)
        assert shown(tl).month_day == (10, 2)
        assert all(d.date[5:] == "10-02" and d.date < "2026" for d in tl.timeline.days)
        await pilot.press("less_than_sign", "s")
        tl = await timeline_loaded(pilot)
        first = tl.types[0]
        assert set(tl.timeline.counts) <= {first} and tl.query_one("ActivityCalendar") \
            .activity.source_type == first


@aio
async def test_enter_opens_a_conversation_or_the_file(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("escape", "f5")
        tl = await timeline_loaded(pilot)
        listing = tl.query_one("#tl-items")

        async def enter_on(item: int) -> None:
            listing.highlighted = next(i for i, o in enumerate(listing._options)
                                       if o.id == f"i{item}")
            await pilot.press("enter")

        chat = next(i for i, it in enumerate(tl.items) if it.source_type == "slack")
        await enter_on(chat)
        conv = await conversation_loaded(pilot)
        assert conv.page.source_file == tl.items[chat].source_file
        assert any(m.hit for m in conv.messages)
        await pilot.press("escape")
        await timeline_loaded(pilot)
        # a message's own line opens the conversation at the window holding it
        last = max(i for i, it in enumerate(tl.items) if it.source_type == "slack")
        await enter_on(last)
        conv = await conversation_loaded(pilot)
        assert conv.page.anchor == tl.items[last].id
        await pilot.press("escape")
        await timeline_loaded(pilot)
        other = next(i for i, it in enumerate(tl.items) if it.source_type == "checkin")
        await enter_on(other)
        await wait_for(pilot, lambda: isinstance(app.screen, FileViewerScreen),
                       what="the file viewer")
        assert app.screen.chunk["id"] == tl.items[other].id


@aio
async def test_t_and_c_from_a_result_and_n_between_the_querys_hits(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await result_highlighted(pilot, "maya birthday dinner",
                                 lambda r: r.source_type == "telegram")
        main = app.main
        rows = main.results.results
        chats = [i for i, r in enumerate(rows) if r.source_type == "telegram"]
        assert len({rows[i].source_file for i in chats}) == 1 and len(chats) >= 2
        await pilot.press("t")
        tl = await timeline_loaded(pilot)
        day = date.fromisoformat(rows[chats[0]].content_date)
        assert shown(tl) == TimeRange(day, day)
        listing = tl.query_one("#tl-items")
        assert tl.items[int(listing.highlighted_option.id[1:])].id == rows[chats[0]].id
        await pilot.press("escape")
        await pilot.press("c")
        conv = await conversation_loaded(pilot)
        assert conv.chunk_id == rows[chats[0]].id
        assert set(conv.hit_ids) == {r.id for r in rows if not r.injected}
        hit_lines = {m.position for m in conv.messages if m.hit}
        assert conv.target in hit_lines
        first = conv.chunk_id
        await pilot.press("n")
        await wait_for(pilot, lambda: conv.chunk_id != first, what="the next hit")
        await wait_for(pilot, lambda: conv.loaded, what="the next hit's page")
        others = {rows[i].id for i in chats[1:]}
        if conv.chunk_id not in others:  # the first result was the later hit: step back
            await pilot.press("N", "N")
            await wait_for(pilot, lambda: conv.chunk_id in others, what="the previous hit")
        await pilot.press("escape")
        main.results.highlighted = next(i for i, r in enumerate(rows)
                                        if r.source_type == "quote")
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is main and any("Only chat" in n[1] for n in app.notes)


@aio
async def test_the_conversation_pages_back_and_forward_at_either_end(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        conv = await conversation_of_a_middle_window(pilot, demo_root)
        held, before, after = len(conv.messages), conv.before, conv.after
        assert before is not None and after is not None
        oldest = conv.messages[0].position
        await pilot.press("home")
        await wait_for(pilot, lambda: conv.before != before, what="the older page")
        assert len(conv.messages) > held and conv.messages[0].position < oldest
        assert conv.query_one("#conv-messages").highlighted > 0  # the cursor stayed put
        held = len(conv.messages)
        newest = conv.messages[-1].position
        await pilot.press("end")
        await wait_for(pilot, lambda: len(conv.messages) > held, what="the newer page")
        assert conv.messages[-1].position > newest
        positions = [m.position for m in conv.messages]
        assert positions == sorted(set(positions))  # no message twice, in file order


@aio
async def test_j_k_g_and_G_move_in_the_day_list_and_the_conversation(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("escape", "f5", "less_than_sign")  # a month: many items
        tl = await timeline_loaded(pilot)
        days = tl.query_one("#tl-items")
        assert days.has_focus and days.option_count > 5
        start = days.highlighted
        await pilot.press("down")  # to the next item (day headings are skipped)
        step = days.highlighted
        assert step > start
        await pilot.press("k")
        assert days.highlighted == start
        await pilot.press("j")
        assert days.highlighted == step
        await pilot.press("end")
        last = days.highlighted
        await pilot.press("home")
        first = days.highlighted
        assert first < last
        await pilot.press("G")
        assert days.highlighted == last
        await pilot.press("g")
        assert days.highlighted == first
        await pilot.press("g", "ctrl+d")
        assert days.highlighted > step
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        conv = await conversation_of_a_middle_window(pilot, demo_root)
        listing = conv.query_one("#conv-messages")
        at = listing.highlighted
        await pilot.press("j", "j", "k")
        assert listing.highlighted == at + 1
        oldest, newest = conv.messages[0].position, conv.messages[-1].position
        before = conv.before
        await pilot.press("g")  # the first message held, then the older page loads
        await wait_for(pilot, lambda: conv.before != before, what="the older page")
        assert conv.messages[listing.highlighted].position == oldest
        held = len(conv.messages)
        await pilot.press("G")
        await wait_for(pilot, lambda: len(conv.messages) > held, what="the newer page")
        assert conv.messages[listing.highlighted].position == newest


@aio
async def test_c_comes_back_to_the_message_opened_at_after_n_and_N(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await result_highlighted(pilot, "maya birthday dinner",
                                 lambda r: r.source_type == "telegram")
        await pilot.press("c")
        conv = await conversation_loaded(pilot)
        first, target = conv.chunk_id, conv.target
        await pilot.press("n")
        await wait_for(pilot, lambda: conv.loaded, what="the next hit's page")
        if conv.chunk_id == first:  # the hit opened at is the last one: go the other way
            await pilot.press("N")
        await wait_for(pilot, lambda: conv.chunk_id != first and conv.loaded,
                       what="another hit")
        assert conv.chunk_id != first
        await pilot.press("c")
        await wait_for(pilot, lambda: conv.chunk_id == first and conv.loaded,
                       what="the message opened at")
        listing = conv.query_one("#conv-messages")
        await pilot.pause()
        assert conv.target == target
        assert conv.messages[listing.highlighted].position == target


@aio
async def test_browsing_a_month_shows_the_days_of_the_messages_in_it(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        # a window running into April is listed by its March messages, and opens at them
        at, spill = await result_highlighted(
            pilot, "what did I do in March",
            lambda r: r.in_range and r.content_date > "2026-03-31")
        # the facets count what is listed, though no arm ranked it
        facets = app.main.query_one(FacetList)
        assert sum(facets.counts.values()) >= len(app.main.results.results) > 0
        row = app.main.results.get_option_at_index(at).prompt.plain
        assert spill.in_range.days in row and spill.content_date not in row
        preview = app.main.preview
        body = preview.query_one("#pv-body").render().plain
        title = preview.query_one("#pv-title").render().plain
        first = spill.content[spill.in_range.start:].split("\n", 1)[0]
        assert body.startswith(first if not spill.in_range.before else "… ")
        assert first in body and f"inside the dates: {spill.in_range.label}" in title


@aio
async def test_c_opens_a_window_at_its_first_message_inside_the_dates(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        _, late = await result_highlighted(
            pilot, "what did I do on 2026-03-01",
            lambda r: r.in_range and r.in_range.before and r.source_type == "slack")
        await pilot.press("c")
        conv = await conversation_loaded(pilot)
        listing = conv.query_one("#conv-messages")
        opened = conv.messages[listing.highlighted]
        assert (opened.time, opened.position) == (late.in_range.first, conv.target)
        first = late.metadata["lines"][0]  # the window's own first message is earlier
        assert any(m.position == first for m in conv.messages) and first < opened.position

"""A deterministic demo data root: a year in the life of Sam Rivera, in every source format.

:func:`generate_demo_root` writes a data root (formats: ``docs/data-layer.md``) for a fictional
person: Sam Rivera, a staff-track software engineer at Fernhill Maps (a route-planning app) in
Oakland, CA, who climbs, cooks, rides, reads, is treasurer of a climbing co-op board and calls
his mother on Sundays. All 25 source types of ``engine.scanner.FILE_ROUTES`` are present, and
the thirteen people of ``profile/relationships.json`` recur across them: as senders in Slack,
Telegram and Signal, as meeting attendees and speakers, in journal entries, stories, photo
events, email catalogs and their own ``memory/entities/people/<slug>.md`` files.

Sizes. ``chunks=None`` writes the small default root (one year, ~2,500 chunks). ``chunks=N``
writes a benchmark root of about N chunks (the estimate is exact by construction: see
:func:`estimate`): ~70% slack, ~15% telegram, ~3% signal, ~12% spread over the other 22 types;
slack spreads over 8–400 channels with Zipf-like sizes (the largest, ``eng-atlas``, holds ~15%
of slack at 500k chunks). Roots above 120k chunks span two years, above 300k three. Files are
written streaming (bounded memory) and 500k chunks take well under two minutes.

Determinism. Same ``seed``, ``chunks`` and ``today`` give byte-identical files: every stream
has its own ``random.Random("<seed>/<stream>")``; nothing reads the clock. (File mtimes are
left alone, so a regenerated root is always seen as changed by the scanner.)

Idempotency. The root gets a marker ``.memlens-demo.json`` (a dot file: never indexed) with the
arguments and the summary. Calling again with the same arguments does nothing and returns the
recorded summary (``created=False``); different arguments raise :class:`DemoRootError` unless
``overwrite=True``, which deletes the demo's own folders (never ``data/search`` or
``memlens.toml``) and writes the new root. A folder that already holds data-layer files but no
marker is refused: it may be someone's real data.

Distinctive facts for search tests (:data:`DEMO_FACTS`; the summary's ``facts`` adds dates and
files):

- a rare proper noun, the restaurant "Osteria Quattro Venti", in exactly one chunk (a journal
  entry about Maya's birthday dinner, 100 days before ``today``) and nowhere else;
- a paraphrase pair: one journal entry about "feeling burned out and exhausted at work" (45 days
  before ``today``); the query "job fatigue" shares no word with it, and no file of the root
  contains "job", "jobs" or "fatigue", so only the semantic arm can find it;
- a two-word name with aliases: Robert Okafor, called "Bobby" almost everywhere (and "Rob");
  "Tomás Herrera" tests diacritics ("Tomas"); "Grace O'Neill" an apostrophe;
- ``notes/work/atlas/migration-plan.md``: YAML frontmatter (title, date, tags list, status,
  priority as int), inline ``#tags``, nested folders and several heading levels; the vault also
  has notes without frontmatter whose date is in the file name (with spaces);
- a Slack message in ``data/slack/ops-alerts.jsonl`` (12 days before ``today``) holding Rich
  markup ``[bold red]alarm[/]`` and an ANSI escape ``\\x1b[31m`` that an app must show literally.
"""

from .facts import DEMO_FACTS, DEMO_MARKER, DemoRootError, DemoSummary
from .root import estimate, generate_demo_root

__all__ = ["DEMO_FACTS", "DEMO_MARKER", "DemoRootError", "DemoSummary", "estimate",
           "generate_demo_root"]

"""One size format and one plural for every front door (engine/display.py)."""

from __future__ import annotations

import pytest

from engine.display import human_bytes, plural
from engine.importers.report import ImportReport
from engine.retrieval.explain import explain_lines


@pytest.mark.parametrize("n, text", [(None, "?"), (0, "0 B"), (1023, "1023 B"),
                                     (1536, "1.5 KB"), (3 * 1024 ** 2, "3.0 MB"),
                                     (5 * 1024 ** 3, "5.0 GB"), (2048 * 1024 ** 3, "2048.0 GB")])
def test_sizes(n, text):
    assert human_bytes(n) == text


def test_plurals():
    assert plural(1, "file") == "1 file"
    assert plural(0, "file") == "0 files"
    assert plural(2594, "file") == "2,594 files"
    assert plural(2, "entry", "entries") == "2 entries"


def test_the_import_report_counts_one_record_in_the_singular():
    assert ImportReport("vtt", records_imported=1).summary().splitlines()[0] == \
        "vtt: imported 1 record, 0 already present"
    assert ImportReport("slack", records_imported=1200, records_skipped_duplicate=3400,
                        dry_run=True).summary().splitlines()[0] == \
        "slack: would import 1,200 records, 3,400 already present"


def test_the_app_and_the_cli_use_the_engine_formatters():
    from cli import table
    from tui.widgets import text

    assert text.human_bytes is human_bytes
    assert table.plural is plural and table.explain_lines is explain_lines

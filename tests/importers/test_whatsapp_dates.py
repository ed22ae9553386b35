"""WhatsApp day/month order (decided per file, said in the report, forced with --date-order)
and the zone of its zone-less times (--tz), on real export samples and hand-made variants.

The real samples live in ../shared/bench-data/formats/whatsapp (SOURCES.md); those tests skip
with the reason when the folder is absent.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.importers import ImportFailed, run_import
from tests.conftest import make_root
from tests.conftest import run_cli as run

FORMATS = Path(__file__).resolve().parents[3] / "shared" / "bench-data" / "formats"
TZ = "Europe/Berlin"
OUT = "data/whatsapp/Maya.jsonl"

# an Android export from a US phone on a 24-hour clock: 1-5 December 2026
US_24H = ("12/1/26, 19:02 - Maya: the kiln is lit\n"
          "12/2/26, 08:15 - Sam: how did the glaze come out?\n"
          "12/3/26, 21:40 - Maya: crackled, on purpose this time\n"
          "12/5/26, 10:05 - Sam: bring the blue bowl Saturday\n")
# a UK export on a 12-hour clock, every date ambiguous: 1-3 December 2026
UK_12H = ("01/12/2026, 9:02 pm - Maya: the kiln is lit\n"
          "02/12/2026, 8:15 am - Sam: how did the glaze come out?\n"
          "03/12/2026, 9:40 pm - Maya: crackled\n")


def sample(rel: str) -> Path:
    path = FORMATS / rel
    if not path.exists():
        pytest.skip(f"../shared/bench-data/formats/{rel} is absent: the real WhatsApp export "
                    "samples are not checked out next to this repository")
    return path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def imp(text: str, tmp_path: Path, **kw):
    src = write(tmp_path / "WhatsApp Chat with Maya.txt", text)
    report = run_import("whatsapp", src, tmp_path / "root", local_tz=kw.pop("local_tz", TZ),
                        **kw)
    return report, read_jsonl(tmp_path / "root" / OUT)


def days(msgs: list[dict]) -> list[str]:
    return [m["date"][:10] for m in msgs]


# --------------------------------------------------------------------------- detection


def test_us_24h_export_reads_as_december_without_a_flag(tmp_path):
    report, msgs = imp(US_24H, tmp_path)
    assert days(msgs) == ["2026-12-01", "2026-12-02", "2026-12-03", "2026-12-05"]
    assert report.problems == []
    assert report.notes == ["WhatsApp Chat with Maya.txt: dates read month/day "
                            "(12/1/26 \u2192 12/2/26 \u2026: spans 4 days that way, 120 the "
                            "other)"]


@pytest.mark.parametrize(("export", "expected", "why"), [
    # read day first, 11 January to 12 January would go back to 2 January: only month first
    # keeps the chat in time order
    ("1/11/26, 10:00 - Maya: a\n1/12/26, 10:00 - Sam: b\n2/1/26, 10:00 - Maya: c\n",
     ["2026-01-11", "2026-01-12", "2026-02-01"],
     "month/day (1/11/26 \u2192 1/12/26 \u2026: in time order only that way)"),
    ("13/01/26, 10:00 - Maya: a\n01/02/26, 10:00 - Sam: b\n02/03/26, 10:00 - Maya: c\n",
     ["2026-01-13", "2026-02-01", "2026-03-02"], "day/month (13/01/26 has a day above 12)"),
])
def test_the_order_that_holds_is_read_and_said(tmp_path, export, expected, why):
    report, msgs = imp(export, tmp_path)
    assert days(msgs) == expected
    assert report.notes == [f"WhatsApp Chat with Maya.txt: dates read {why}"]


def test_ambiguous_day_first_export_on_a_12h_clock_reads_day_first(tmp_path):
    """The old rule took a 12-hour clock for month first; the sequence says otherwise."""
    report, msgs = imp(UK_12H, tmp_path)
    assert days(msgs) == ["2026-12-01", "2026-12-02", "2026-12-03"]
    assert msgs[0]["date"].startswith("2026-12-01T21:02")
    assert "dates read day/month (01/12/2026 \u2192 02/12/2026 \u2026" in report.notes[0]


def test_ambiguous_day_first_export_that_only_fits_dmy(tmp_path):
    report, msgs = imp("11/01/26, 10:00 - Maya: a\n12/01/26, 10:00 - Sam: b\n"
                       "02/02/26, 10:00 - Maya: c\n", tmp_path)
    assert days(msgs) == ["2026-01-11", "2026-01-12", "2026-02-02"]
    assert report.notes == ["WhatsApp Chat with Maya.txt: dates read day/month "
                            "(11/01/26 \u2192 12/01/26 \u2026: in time order only that way)"]


def test_a_single_date_falls_back_and_says_so(tmp_path):
    report, msgs = imp("03/04/26, 10:00 - Maya: a\n03/04/26, 11:00 - Sam: b\n", tmp_path)
    assert days(msgs) == ["2026-04-03", "2026-04-03"]
    assert report.notes[0].startswith("WhatsApp Chat with Maya.txt: dates read day/month "
                                      "(ambiguous: ")
    assert "--date-order dmy|mdy to force" in report.notes[0]
    report, msgs = imp("03/04/26, 10:00 pm - Maya: a\n", tmp_path / "12h")
    assert days(msgs) == ["2026-03-04"]
    assert "12-hour clock suggests month first" in report.notes[0]
    report, msgs = imp("03.04.2026, 10:00 - Maya: a\n", tmp_path / "dots")
    assert days(msgs) == ["2026-04-03"]
    assert "dotted dates are written day first" in report.notes[0]


def test_a_line_shaped_like_another_exports_header_is_message_text(tmp_path):
    """A message quoting a line laid out as another export's header (a pasted log: iOS
    brackets, a year-first date) keeps it as its text; the export's own headers keep their
    order. Taken as a header, one such line read every date year first and dropped the
    other messages as invalid dates (387 of 400 in a trial)."""
    pasted = "[2026-01-01 10:00] Fake Person: injected"
    report, msgs = imp("01/02/2026, 09:00 - Maya: hello\n"
                       "02/02/2026, 10:00 - Sam: pasted log\n"
                       f"{pasted}\n"
                       "2026-01-01, 10:00 - Fake: year first\n"
                       "13/02/2026, 11:00 - Maya: ok\n", tmp_path)
    assert days(msgs) == ["2026-02-01", "2026-02-02", "2026-02-13"]
    assert msgs[1]["text"] == f"pasted log\n{pasted}\n2026-01-01, 10:00 - Fake: year first"
    assert report.problems == []
    assert "WhatsApp Chat with Maya.txt: 2 lines shaped like another export's message header " \
        "kept as the text of the message quoting it" in report.notes
    # an export written year first (its first header) reads its own lines
    report, msgs = imp("2026-02-01, 09:00 - Maya: hello\n"
                       "01/02/2026, 10:00 - Sam: quoted\n"
                       "2026-02-13, 11:00 - Maya: ok\n", tmp_path / "ymd")
    assert days(msgs) == ["2026-02-01", "2026-02-13"]
    assert msgs[0]["text"] == "hello\n01/02/2026, 10:00 - Sam: quoted"


def test_order_is_decided_per_file(tmp_path):
    folder = tmp_path / "chats"
    write(folder / "WhatsApp Chat with Maya.txt", US_24H)
    write(folder / "WhatsApp Chat with Sam.txt", UK_12H)
    report = run_import("whatsapp", folder, tmp_path / "root", local_tz=TZ)
    assert days(read_jsonl(tmp_path / "root" / OUT))[0] == "2026-12-01"
    assert days(read_jsonl(tmp_path / "root/data/whatsapp/Sam.jsonl"))[0] == \
        "2026-12-01"
    assert [n.split(" (")[0] for n in sorted(report.notes)] == [
        "WhatsApp Chat with Maya.txt: dates read month/day",
        "WhatsApp Chat with Sam.txt: dates read day/month"]


def test_forced_order_and_bad_value_in_the_api(tmp_path):
    report, msgs = imp(US_24H, tmp_path, date_order="dmy")
    assert days(msgs) == ["2026-01-12", "2026-02-12", "2026-03-12", "2026-05-12"]
    assert report.notes == ["WhatsApp Chat with Maya.txt: dates read day/month "
                            "(--date-order dmy)"]
    with pytest.raises(ImportFailed, match="unknown date order"):
        imp(US_24H, tmp_path / "bad", date_order="ymd")


# --------------------------------------------------------------------------- real samples


def _headers_only(text: str, keep) -> str:
    """The messages of ``text`` whose date fields ``keep`` accepts (continuations follow)."""
    out, keeping = [], False
    for line in text.splitlines():
        m = re.match(r"^\[?(\d{2})([.-])(\d{2})\2(\d{2,4})", line)
        if m:
            keeping = keep(int(m[1]), int(m[3]))
        if keeping:
            out.append(line)
    return "\n".join(out) + "\n"


def _swap(text: str) -> str:
    """The same export as a month-first phone writes it."""
    return re.sub(r"^(\[?)(\d{2})([.-])(\d{2})\3", r"\1\4\3\2\3", text, flags=re.M)


@pytest.mark.parametrize("rel", ["whatsapp/whatstk/pokemon.txt", "whatsapp/whatstk/lorem.txt"])
def test_real_samples_day_first_settled_by_a_day_above_12(tmp_path, rel):
    text = sample(rel).read_text(encoding="utf-8")
    report, msgs = imp(text, tmp_path)
    assert len(report.notes) == 1 and "has a day above 12)" in report.notes[0]
    assert "dates read day/month" in report.notes[0]
    # the same chat written month first reads to the same dates
    swapped, swapped_msgs = imp(_swap(text), tmp_path / "swapped")
    assert "dates read month/day" in swapped.notes[0]
    assert [m["date"] for m in swapped_msgs] == [m["date"] for m in msgs]
    # only its ambiguous dates (no day above 12): the sequence still tells, either way round
    full = {m["date"]: m["text"] for m in msgs}
    ambiguous = _headers_only(text, lambda day, month: day <= 12)
    report, part = imp(ambiguous, tmp_path / "ambiguous")
    assert "dates read day/month" in report.notes[0] and "\u2192" in report.notes[0]
    assert part and all(full.get(m["date"]) == m["text"] for m in part)
    report, part_us = imp(_swap(ambiguous), tmp_path / "ambiguous-us")
    assert "dates read month/day" in report.notes[0] and "\u2192" in report.notes[0]
    assert [m["date"] for m in part_us] == [m["date"] for m in part]


# --------------------------------------------------------------------------- the command line


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    return make_root(tmp_path / "root")


def cli_import(capsys, root, src, *flags):
    code, out, err = run(capsys, "import", "whatsapp", str(src), "--root", str(root), "--json",
                         *flags)
    return code, (json.loads(out) if code == 0 else None), err


def test_cli_date_order_forces_either_way(root, tmp_path, capsys):
    us = write(tmp_path / "us/WhatsApp Chat with Maya.txt", US_24H)
    code, report, _ = cli_import(capsys, root, us, "--date-order", "dmy", "--tz", TZ)
    assert code == 0 and report["notes"] == [
        "WhatsApp Chat with Maya.txt: dates read day/month (--date-order dmy)"]
    assert days(read_jsonl(root / OUT)) == ["2026-01-12", "2026-02-12", "2026-03-12",
                                            "2026-05-12"]
    uk = write(tmp_path / "uk/WhatsApp Chat with Sam.txt", UK_12H)
    code, report, _ = cli_import(capsys, root, uk, "--date-order", "MDY", "--tz", TZ)
    assert code == 0 and "(--date-order mdy)" in report["notes"][0]
    assert days(read_jsonl(root / "data/whatsapp/Sam.jsonl")) == [
        "2026-01-12", "2026-02-12", "2026-03-12"]


def test_cli_tz_is_the_zone_of_the_exports_clock(root, tmp_path, capsys):
    src = write(tmp_path / "WhatsApp Chat with Maya.txt",
                "7/4/26, 12:00 - Maya: fireworks\n" + US_24H)
    code, _, _ = cli_import(capsys, root, src, "--tz", "America/New_York")
    assert code == 0
    msgs = read_jsonl(root / OUT)
    assert msgs[1]["date"] == "2026-12-01T19:02:00-05:00" and msgs[1]["tz"] == "America/New_York"
    assert msgs[0]["date"] == "2026-07-04T12:00:00-04:00"  # daylight saving per date
    other = make_root(tmp_path / "other")
    code, _, _ = cli_import(capsys, other, src, "--tz", "+02:00")
    msgs = read_jsonl(other / OUT)
    assert msgs[1]["date"] == "2026-12-01T19:02:00+02:00" and msgs[1]["tz"] == "UTC+02:00"
    assert msgs[0]["date"] == "2026-07-04T12:00:00+02:00"


@pytest.mark.parametrize("flags, says", [
    (["--date-order", "ymd"], "--date-order 'ymd': use dmy (day/month) or mdy (month/day)"),
    (["--tz", "Mars/Olympus"], "--tz: unknown time zone 'Mars/Olympus'"),
    (["--tz", "+15:00"], "--tz: unknown time zone '+15:00'"),
])
def test_cli_bad_values_exit_2_with_one_line(root, tmp_path, capsys, flags, says):
    src = write(tmp_path / "WhatsApp Chat with Maya.txt", US_24H)
    code, _, err = cli_import(capsys, root, src, *flags)
    assert code == 2 and err.startswith(f"memlens: {says}") and err.count("\n") == 1
    assert not (root / "data/telegram").exists()


def test_cli_date_order_is_for_whatsapp_only(root, tmp_path, capsys):
    code, out, err = run(capsys, "import", "mbox", str(write(tmp_path / "m.mbox", "")),
                         "--root", str(root), "--date-order", "dmy")
    assert code == 2 and err == "memlens: --date-order applies to whatsapp imports only\n"

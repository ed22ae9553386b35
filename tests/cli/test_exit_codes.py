"""One exit-code rule for every subcommand (README "Command line", cli/errors.py): 0 done, 2 bad
input (what was typed is refused before anything is done), 1 a failure while doing a valid
request; a refusal or a failure is one line on stderr, never a traceback."""

from __future__ import annotations

from datetime import date

import pytest

from engine import reindex
from engine.config import load_config
from engine.demo import generate_demo_root
from engine.display import (
    UnknownSourceType,
    close_matches,
    did_you_mean,
    resolve_source_type,
)
from engine.index.routes import SOURCE_TYPES
from tests.conftest import make_root, run_cli

VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\n<v Maya>The harbor bridge is open.\n"


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict[str, str]:
    """What the rows name: an indexed root, a root whose index is garbage, one whose
    memlens.toml is broken, the (generated) demo root, an empty folder, a file, an export."""
    base = tmp_path_factory.mktemp("exit-codes")
    root = make_root(base / "root")
    reindex(config=load_config(root))
    broken = make_root(base / "broken")
    (broken / "data/search").mkdir(parents=True)
    (broken / "data/search/memlens.db").write_bytes(b"not an index " * 100)
    bad_config = make_root(base / "badconfig")
    (bad_config / "memlens.toml").write_text("[serch]\nrrf_k = 60\n")
    demo = base / "demo"
    generate_demo_root(demo, today=date(2026, 11, 30))
    (base / "folder").mkdir()
    (base / "file.txt").write_text("not a folder\n")
    (base / "talk.vtt").write_text(VTT)
    return {"root": str(root), "broken": str(broken), "badconfig": str(bad_config),
            "demo": str(demo), "folder": str(base / "folder"), "file": str(base / "file.txt"),
            "vtt": str(base / "talk.vtt"), "missing": str(base / "missing")}


def row(*argv: str, code: int, said: str, root: str | None = "root"):
    """``memlens ARGV --root {root}`` exits ``code`` with ``said`` on stderr (on stdout for
    code 0)."""
    args = [*argv, "--root", f"{{{root}}}"] if root else list(argv)
    return pytest.param(args, code, said, id=" ".join(args))


ROWS = [
    # the command line itself
    row("frobnicate", code=2, said="invalid choice: 'frobnicate'", root=None),
    row("--bogus", code=2, said="unrecognized arguments: --bogus", root=None),
    row(code=2, said="missing does not exist", root="missing"),  # the app
    # search
    row("search", "harbor", "--mode", "keyword", code=0, said="harbor"),
    row("search", "x", "--source", "nosuch", code=2, said="unknown source type 'nosuch'"),
    row("search", "x", "--source", "notes", code=2,
        said="unknown source type 'notes': did you mean note?"),
    row("search", "x", "--source", "emial", code=2, said="did you mean email (email_catalog)?"),
    row("search", "x", "--person", "zzqq", code=2, said="no one is named 'zzqq'"),
    row("search", "x", "--person", " ", code=2, said="--person is empty: give a name"),
    row("search", "x", "--folder", "", code=2, said="--folder is empty: give a folder"),
    row("search", "x", "--tag", "a", "--tag", "", code=2, said="--tag is empty: give a tag"),
    row("search", "x", "--limit", "1.5", code=2, said="'1.5' is not a whole number"),
    row("search", "x", "--bogus", code=2, said="--bogus (see `memlens search --help`)"),
    row("search", "x", "--folder", "Wrok/", code=2, said='no folder "Wrok/" in the index'),
    row("search", "x", "--folder", "notes/hmoe/", code=2, said='did you mean "notes/home/"?'),
    row("search", "x", "--limit", "0", code=2, said="must be between 1 and 200, not 0"),
    row("search", "x", "--since", "2026-02-30", code=2, said="2026-02-30 is not a date"),
    row("search", "x", "--since", "2026-05", "--until", "2026-04", code=2,
        said="is after --until"),
    row("search", " ", code=2, said="the query is empty"),
    row("search", "x", "--mode", "fuzzy", code=2, said="invalid choice: 'fuzzy'"),
    row("search", "x", code=2, said="missing does not exist", root="missing"),
    row("search", "x", code=2, said="file.txt is not a folder", root="file"),
    row("search", "harbor", code=1, said="is not a memlens index", root="broken"),
    # reindex
    row("reindex", code=0, said="indexed"),
    row("reindex", "--bogus", code=2,
        said="unrecognized arguments: --bogus (see `memlens reindex --help`)"),
    row("reindex", code=2, said="missing does not exist", root="missing"),
    row("reindex", code=1, said="is not a memlens index", root="broken"),
    # discover
    row("discover", code=0, said="files routed"),
    row("discover", "--pending", "--files", code=2, said="not allowed with argument --pending"),
    row("discover", code=2, said="missing does not exist", root="missing"),
    # stats
    row("stats", code=0, said="chunks"),
    row("stats", "--bogus", code=2,
        said="unrecognized arguments: --bogus (see `memlens stats --help`)"),
    row("stats", code=1, said="is not a memlens index", root="broken"),
    row("stats", code=1, said="unknown table 'serch' (did you mean search?)", root="badconfig"),
    # timeline
    row("timeline", "2026-03", code=0, said="2026-03"),
    row("timeline", "notadate", code=2, said="not a date, range or time phrase: 'notadate'"),
    row("timeline", "--source", "nosuch", code=2, said="unknown source type 'nosuch'"),
    row("timeline", "--limit", "0", code=2, said="must be a number from 1 to 10000"),
    row("timeline", code=1, said="is not a memlens index", root="broken"),
    # maintenance
    row("maintenance", "--bogus", code=2,
        said="unrecognized arguments: --bogus (see `memlens maintenance --help`)"),
    row("maintenance", code=2, said="missing does not exist", root="missing"),
    row("maintenance", code=1, said="is not a memlens index", root="broken"),
    # demo: a root it refuses to write is bad input too
    row("demo", "--no-app", "--chunks", "0", code=2, said="must be a positive number, not 0",
        root="missing"),
    row("demo", "--no-app", "--today", "2026-02-30", code=2, said="'2026-02-30' is not a day",
        root="missing"),
    row("demo", "--no-app", "--today", "tomorrow", code=2,
        said="'tomorrow' is not a day: use YYYY-MM-DD", root="missing"),
    row("demo", "--no-app", code=2, said="already holds data-layer files"),
    row("demo", "--no-app", code=2, said="file.txt exists and is not a folder", root="file"),
    # import
    row("import", "vtt", "{vtt}", "--dry-run", code=0, said="would import 1 record"),
    row("import", "nosuchkind", "{folder}", code=2, said="unknown kind 'nosuchkind'"),
    row("import", "slack", "{missing}", code=2, said="missing: no such file or folder"),
    row("import", "obsidian", " ", code=2, said="the path to import is empty"),
    row("import", "slack", "{folder}", "--tz", "Mars/Base", code=2,
        said="--tz: unknown time zone 'Mars/Base'"),
    row("import", "whatsapp", "{folder}", "--date-order", "ymd", code=2,
        said="--date-order 'ymd': use dmy"),
    row("import", "slack", "{folder}", "--date-order", "dmy", code=2,
        said="--date-order applies to whatsapp imports only"),
    row("import", "vtt", "{vtt}", code=2, said="is the demo root", root="demo"),
    row("import", "slack", "{folder}", code=1, said="not a Slack export"),
    # source add / list / remove
    row("source", "list", code=0, said="no sources"),
    row("source", "frob", code=2, said="invalid choice: 'frob'"),
    row("source", "add", "{folder}", code=2, said="the following arguments are required: --type"),
    row("source", "add", "{folder}", "--type", "notes", code=2,
        said="unknown source type 'notes': did you mean note?"),
    row("source", "add", "{folder}", "--type", "emial", code=2,
        said="unknown source type 'emial': did you mean email (email_catalog)?"),
    row("source", "add", "{folder}", "--type", "s", code=2,
        said="source type 's' could be scratch, Signal (signal), Slack (slack), story"),
    row("source", "add", "{folder}", "--type", "note", "--name", "a/b", code=2,
        said="a source name must be"),
    row("source", "add", "{missing}", "--type", "note", code=2, said="no such folder: "),
    row("source", "add", "{file}", "--type", "note", code=2, said="not a folder: "),
    row("source", "add", "", "--type", "note", code=2, said="the folder's path is empty"),
    row("source", "add", "{root}", "--type", "note", code=2, said="is the data root"),
    row("source", "add", "{root}/notes", "--type", "note", code=2,
        said="lies inside the data root"),
    row("source", "add", "{folder}", "--type", "note", "--ignore", "foo\\", code=2,
        said="is not a valid gitignore pattern"),
    row("source", "add", "{folder}", "--type", "note", code=2,
        said="the demo root owns its configuration", root="demo"),
    row("source", "add", "{folder}", "--type", "note", code=1,
        said="memlens.toml: unknown table 'serch'", root="badconfig"),
    row("source", "remove", "nosuch", code=2, said="no source named 'nosuch' (sources: none)"),
    # mcp and watch: only what stops them before they serve or watch
    row("mcp", "--bogus", code=2,
        said="unrecognized arguments: --bogus (see `memlens mcp --help`)"),
    row("mcp", code=2, said="missing does not exist", root="missing"),
    row("watch", "--bogus", code=2,
        said="unrecognized arguments: --bogus (see `memlens watch --help`)"),
    row("watch", code=2, said="missing does not exist", root="missing"),
]


@pytest.mark.parametrize("argv, code, said", ROWS)
def test_every_subcommand_exits_by_the_one_rule(capsys, places, argv, code, said):
    got, out, err = run_cli(capsys, *(arg.format(**places) for arg in argv))
    # `memlens demo` says which root first (cli/index.py); the failure is the line after it
    lines = [line for line in err.splitlines() if not line.startswith("demo root: ")]
    if code == 0:
        assert got == 0 and said in out, err
        return
    assert got == code, err
    assert len(lines) == 1 and lines[0].startswith("memlens: ") and said in lines[0], err
    assert out == "" and "Traceback" not in err


@pytest.mark.parametrize("typed, said", [
    ("notes", "unknown source type 'notes': did you mean note?"),
    ("jornal", "unknown source type 'jornal': did you mean journal?"),
    ("emial", "unknown source type 'emial': did you mean email (email_catalog)?"),
    ("telgram", "unknown source type 'telgram': did you mean Telegram (telegram)?"),
    ("zzzz", "unknown source type 'zzzz': known: "),
])
def test_did_you_mean_names_a_type_once_when_its_label_is_its_id(typed, said):
    with pytest.raises(UnknownSourceType) as refused:
        resolve_source_type(typed, SOURCE_TYPES)
    assert str(refused.value).startswith(said)
    assert "note (note)" not in str(refused.value)


def test_did_you_mean_is_one_wording_for_every_caller():
    from tui.keys import remap_problems

    assert did_you_mean([]) == "" and did_you_mean([], aside=True) == ""
    assert did_you_mean(["menu"]) == "did you mean menu?"
    assert did_you_mean(["a", "b"], aside=True) == " (did you mean a or b?)"
    assert close_matches("serch", ["search", "sources", "index"]) == ["search"]
    assert close_matches("zzz", ["search"]) == []
    assert remap_problems({"menuu": "f10"}) == [
        "[keys] menuu is no binding id (did you mean menu?); the help screen (F1) lists them"]
    # only the nearest few when asked: "notes/hmoe" is "notes/home", not also "notes"
    known = ["notes/home", "notes", "data"]
    assert close_matches("notes/hmoe", known, n=3) == ["notes/home", "notes"]
    assert close_matches("notes/hmoe", known, n=3, within=0.1) == ["notes/home"]


def test_source_list_on_the_demo_root_says_how_to_use_a_root_of_ones_own(capsys, places):
    code, out, err = run_cli(capsys, "source", "list", "--root", places["demo"])
    assert code == 0 and err == ""
    assert out.startswith("no sources: the demo root takes none") and "--root DIR" in out
    assert "source add" not in out  # the demo root refuses it
    code, out, _ = run_cli(capsys, "source", "list", "--root", places["root"])
    assert code == 0 and "`memlens source add PATH --type note` indexes a folder" in out

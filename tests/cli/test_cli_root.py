"""`--root`/`--db` work before and after the subcommand; a missing root is never used silently.

A decoy root sits in $MEMLENS_ROOT: a command that ignored the named root would answer from it.
"""

from __future__ import annotations

import json

import pytest

import mcp_server.server
import tui.app
from cli.main import main
from tests.conftest import make_root

TARGET_FILES = {"data/slack/general.jsonl", "data/slack/random.jsonl", "notes/home/garden.md"}


@pytest.fixture(scope="module")
def roots(tmp_path_factory):
    top = tmp_path_factory.mktemp("roots")
    target = make_root(top / "target")
    decoy = top / "decoy"
    (decoy / "notes").mkdir(parents=True)
    (decoy / "notes/decoy.md").write_text("# Decoy\n\nthe harbor decoy note\n")
    for root in (target, decoy):
        assert main(["reindex", "--root", str(root)]) == 0
    return target, decoy


@pytest.fixture
def env(roots, monkeypatch, capsys):
    target, decoy = roots
    monkeypatch.setenv("MEMLENS_ROOT", str(decoy))
    capsys.readouterr()
    return target, decoy


def place(command: list[str], where: str, flag: str, value: str) -> list[str]:
    """``command`` with ``flag value`` before the subcommand or after it."""
    return [flag, value, *command] if where == "before" else [*command, flag, value]


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# each subcommand, and what in its output only the target root (3 files, 16 chunks) gives
CHECKS = {
    "search": (["search", "harbor", "--json", "--mode", "keyword"],
               lambda out: {r["source_file"] for r in json.loads(out)["results"]} <= TARGET_FILES
               and json.loads(out)["results"]),
    "reindex": (["reindex", "--json"],
                lambda out: json.loads(out)["files"] + json.loads(out)["skipped"] == 3),
    "maintenance": (["maintenance", "--no-vacuum", "--json"],
                    lambda out: json.loads(out)["vectors"] == 16),
    "discover": (["discover"], lambda out: "3 files routed" in out),
    "discover-pending": (["discover", "--pending"], lambda out: "0 of 3 files need" in out),
    "stats": (["stats", "--json"], lambda out: json.loads(out)["chunks"] == 16),
}


@pytest.mark.parametrize("where", ["before", "after"])
@pytest.mark.parametrize("name", list(CHECKS))
def test_every_subcommand_uses_the_named_root(env, capsys, name, where):
    target, _ = env
    command, check = CHECKS[name]
    code, out, err = run(capsys, place(command, where, "--root", str(target)))
    assert code == 0, err
    assert check(out), out


@pytest.mark.parametrize("where", ["before", "after"])
def test_db_before_and_after(env, capsys, where):
    target, decoy = env
    db = str(target / "data/search/memlens.db")
    code, out, err = run(capsys, place(["stats", "--json", "--root", str(decoy)], where, "--db",
                                       db))
    assert code == 0 and json.loads(out)["chunks"] == 16, err


@pytest.mark.parametrize("where", ["before", "after"])
def test_import_writes_into_the_named_root(env, capsys, tmp_path, where):
    target, decoy = env
    export = tmp_path / "chat.txt"
    export.write_text("12/03/2026, 21:04 - Maya Chen: the kite is ready\n")
    new_root = tmp_path / "imported"
    new_root.mkdir()
    code, out, err = run(capsys, place(["import", "whatsapp", str(export), "--json"], where,
                                       "--root", str(new_root)))
    assert code == 0 and json.loads(out)["records_imported"] == 1, err
    assert list((new_root / "data/whatsapp").glob("*.jsonl"))
    assert not (decoy / "data/whatsapp").exists()


@pytest.mark.parametrize("argv", [["--root", "R", "mcp"], ["mcp", "--root", "R"],
                                  ["--root", "R"]], ids=["mcp-before", "mcp-after", "app"])
def test_mcp_and_app_get_the_named_root(env, capsys, monkeypatch, argv):
    target, _ = env
    seen = []
    monkeypatch.setattr(mcp_server.server, "serve", lambda root, db: seen.append(root) or 0)
    monkeypatch.setattr(tui.app, "run_app", lambda root, db: seen.append(root) or 0)
    argv = [str(target) if a == "R" else a for a in argv]
    assert main(argv) == 0
    assert [str(p) for p in seen] == [str(target)]


MISSING_ROOT_CASES = [(command, where)
                      for command in (["search", "x"], ["reindex"], ["maintenance"],
                                      ["discover"], ["stats"], ["mcp"])
                      for where in ("before", "after")] + [([], "before")]  # [] = the app


@pytest.mark.parametrize("command, where", MISSING_ROOT_CASES,
                         ids=lambda v: ("-".join(v) or "app") if isinstance(v, list) else v)
def test_a_missing_root_is_one_line_and_exit_2(env, capsys, monkeypatch, tmp_path, command,
                                               where):
    # were the root ignored, the server or the app would start on the decoy: fail, not hang
    monkeypatch.setattr(mcp_server.server, "serve", lambda root, db: 0)
    monkeypatch.setattr(tui.app, "run_app", lambda root, db: 0)
    missing = tmp_path / "nonexistent"
    code, out, err = run(capsys, place(command, where, "--root", str(missing)))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("memlens: ") and str(missing) in err
    assert "does not exist" in err and not missing.exists()


def test_a_missing_root_from_the_environment_is_refused(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("MEMLENS_ROOT", str(tmp_path / "gone"))
    code, out, err = run(capsys, ["stats"])
    assert code == 2 and "gone does not exist" in err and err.count("\n") == 1


def test_demo_creates_the_root_before_or_after_and_a_second_run_counts_unchanged(
        monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    root = tmp_path / "new" / "demo"
    code, _, err = run(capsys, ["--root", str(root), "demo", "--no-app"])
    assert code == 0 and (root / "data/search/memlens.db").exists(), err
    code, out, _ = run(capsys, ["stats", "--root", str(root), "--json"])
    total = json.loads(out)["chunks"]
    assert total > 1000

    code, _, err = run(capsys, ["demo", "--no-app", "--root", str(root)])
    assert code == 0
    assert f"indexed 0 new chunks ({total:,} unchanged)" in err, err
    code, out, _ = run(capsys, ["reindex", "--root", str(root)])
    assert f"chunks: 0 written, {total:,} unchanged" in out, out

    # dated to the day it is made: --today (or another day's clock) makes it again for that day
    code, _, err = run(capsys, ["demo", "--no-app", "--root", str(root), "--today", "2026-03-14"])
    assert code == 0 and "indexed 0 new" not in err, err
    marker = json.loads((root / ".memlens-demo.json").read_text())
    assert marker["args"]["today"] == "2026-03-14"
    monkeypatch.setenv("MEMLENS_NOW", "2026-03-14T18:00:00")
    code, out, err = run(capsys, ["search", "what happened yesterday", "--root", str(root),
                                  "--json", "--limit", "50"])
    response = json.loads(out)
    assert code == 0 and response["since"] == response["until"] == "2026-03-13", err
    shown = {(r["in_range"] or {}).get("first", r["content_date"])[:10]
             for r in response["results"]}  # a chat window: by its messages of that day
    assert response["results"] and shown == {"2026-03-13"}, shown
    code, _, err = run(capsys, ["demo", "--no-app", "--root", str(root), "--today", "2026-02-30"])
    assert code == 2 and "'2026-02-30' is not a day (day is out of range for month): use " \
        "YYYY-MM-DD" in err
    assert len(err.strip().splitlines()) == 1

"""The memlens command line and the engine's module entry points, on a real root."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.storage.lock import writer_lock
from tests.conftest import REPO, make_root
from tests.conftest import run_cli as run


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    return make_root(tmp_path / "root")




def test_reindex_json_prints_the_seed_fields(root, capsys):
    code, out, err = run(capsys, "reindex", "--root", str(root), "--json")
    assert code == 0 and err == ""
    stats = json.loads(out)
    for field in ("files", "chunks", "skipped", "unchanged_chunks", "deleted_chunks", "errors",
                  "pending_embeddings"):
        assert field in stats
    assert stats["files"] == 3 and stats["chunks"] == 16
    code, out, _ = run(capsys, "reindex", "--root", str(root), "--json")
    assert json.loads(out)["skipped"] == 3


def test_stats_discover_search_and_maintenance(root, capsys):
    run(capsys, "reindex", "--root", str(root))
    code, out, _ = run(capsys, "stats", "--root", str(root), "--json")
    st = json.loads(out)
    assert code == 0 and st["per_type"] == {"slack": 12, "note": 4}
    assert st["pending_embeddings"] == 0 and st["embedder"].startswith("local:")
    code, out, _ = run(capsys, "stats", "--root", str(root))
    assert "  Slack       12" in out and "embedder" in out  # types by their labels

    code, out, _ = run(capsys, "discover", "--root", str(root))
    assert code == 0 and "Slack" in out and "3 files routed" in out
    (root / "notes/new.md").write_text("# New\n\nfresh")
    code, out, _ = run(capsys, "discover", "--root", str(root), "--pending")
    assert "notes/new.md" in out and "1 of 4 files needs indexing" in out

    code, out, _ = run(capsys, "search", "dahlias", "--root", str(root), "--json")
    response = json.loads(out)
    assert response["arms"] == "both" and response["results"][0]["id"] == \
        "notes/home/garden.md#s3"
    top = response["results"][0]
    # each arm's part under its fusion-neutral name, and the old name as its alias
    assert set(top["arm_scores"]) == {"keyword", "semantic"}
    assert top["rrf_terms"] == top["arm_scores"]
    assert sum(top["arm_scores"].values()) == pytest.approx(top["score"] / top["decay"]["factor"])
    code, out, _ = run(capsys, "search", "dahlias", "--root", str(root), "--explain",
                       "--limit", "3")
    assert "fusion: keyword 0.85 ×" in out and "decay: ×" in out and "mmr: position 1" in out
    code, out, _ = run(capsys, "search", "harbor", "--root", str(root), "--source", "note",
                       "--mode", "keyword")
    assert "slack" not in out

    code, out, _ = run(capsys, "maintenance", "--root", str(root), "--json")
    assert code == 0 and json.loads(out)["vacuumed"] is True
    code, out, _ = run(capsys, "maintenance", "--root", str(root), "--no-vacuum")
    assert code == 0 and "search file rewritten: 16 vectors" in out and "free pages" in out


def test_errors_are_one_line_and_non_zero(root, tmp_path, capsys):
    code, out, err = run(capsys, "search", "x", "--root", str(tmp_path / "missing"))
    assert code == 2 and err.count("\n") == 1 and err.startswith("memlens: ")
    code, out, err = run(capsys, "stats", "--root", str(root))
    assert code == 1 and "no index" in err and "Traceback" not in err
    code, out, err = run(capsys, "search", "x", "--root", str(root), "--limit", "0")
    assert code == 2 and err.startswith("memlens: ")
    (root / "memlens.toml").write_text("[search]\nrrf_k = 'sixty'\n")
    code, out, err = run(capsys, "reindex", "--root", str(root))
    assert code == 1 and "rrf_k must be a positive integer" in err
    (root / "memlens.toml").unlink()
    with writer_lock(root / "data/search/memlens.db", "reindex"):
        code, out, err = run(capsys, "reindex", "--root", str(root))
    assert code == 1 and "already writing" in err and err.count("\n") == 1


def test_root_from_environment(root, capsys, monkeypatch):
    monkeypatch.setenv("MEMLENS_ROOT", str(root))
    code, out, _ = run(capsys, "reindex", "--json")
    assert code == 0 and json.loads(out)["files"] == 3


def test_an_unlistable_folder_fails_reindex_in_every_output(root, capsys, monkeypatch):
    # one exit rule for `memlens reindex`, its --json and `python -m engine.indexer`
    import os

    assert run(capsys, "reindex", "--root", str(root))[0] == 0
    real_scandir, slack = os.scandir, str(root / "data/slack")

    def scandir(path="."):
        if os.fspath(path).rstrip("/") == slack:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    code, _, err = run(capsys, "reindex", "--root", str(root), "--full")
    assert code == 1 and "data/slack/" in err and "Permission denied" in err
    code, out, _ = run(capsys, "reindex", "--root", str(root), "--json")
    assert code == 1 and json.loads(out)["unlisted_dirs"] == 1


@pytest.mark.parametrize("argv, expect", [
    (["-m", "engine.scanner", "--discover"], "notes/home/garden.md"),
    (["-m", "engine.indexer"], '"chunks": 16'),
    (["-m", "engine.maintenance", "--no-vacuum"], '"vacuumed": false'),
])
def test_seed_module_entry_points(root, argv, expect):
    env_root = ["--root", str(root)]
    if argv[1] == "engine.maintenance":
        subprocess.run([sys.executable, "-m", "engine.indexer", *env_root], cwd=REPO,
                       check=True, capture_output=True)
    out = subprocess.run([sys.executable, *argv, *env_root], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert expect in out.stdout


def test_a_module_entry_point_without_the_installed_command_says_so(monkeypatch, capsys):
    from engine import command_line

    monkeypatch.setattr(command_line, "entry_points", lambda **kw: ())
    assert command_line.run(["reindex", "--json"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -e ." in err


def test_import_then_reindex_then_search(root, tmp_path, capsys):
    export = tmp_path / "chat.txt"
    export.write_text("12/03/2026, 21:04 - Maya Chen: the pelican kite is ready\n"
                      "12/03/2026, 21:05 - Sam Rivera: wonderful, bring it Saturday\n")
    code, out, err = run(capsys, "import", "whatsapp", str(export), "--root", str(root),
                         "--dry-run")
    assert code == 0 and not (root / "data/whatsapp").exists()
    code, out, err = run(capsys, "import", "whatsapp", str(export), "--root", str(root),
                         "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["records_imported"] == 2
    run(capsys, "reindex", "--root", str(root))
    code, out, _ = run(capsys, "search", "pelican kite", "--root", str(root), "--json",
                       "--mode", "keyword")
    top = json.loads(out)["results"][0]
    assert top["source_type"] == "whatsapp" and "pelican kite" in top["content"]
    code, out, err = run(capsys, "import", "mbox", str(tmp_path / "nope.mbox"), "--root",
                         str(root))
    assert code == 2 and err.startswith("memlens: ") and err.count("\n") == 1


def test_search_folder_inside_sources_as_written(root, tmp_path, capsys):
    """--folder takes a folder inside a source the way a person writes it; two of that name
    or none stop with one line (exit 2) naming the folders the index holds."""
    for name in ("Vault", "Notes"):
        (tmp_path / name / "Work").mkdir(parents=True)
        (tmp_path / name / "Work/plan.md").write_text(f"# Plan\n\nThe {name} kiln budget.\n")
    (tmp_path / "Vault/Daily").mkdir()
    (tmp_path / "Vault/Daily/monday.md").write_text("# Monday\n\nThe kiln was cold.\n")
    (root / "memlens.toml").write_text("".join(
        f'[sources.{n}]\npath = "{tmp_path / n}"\ntype = "note"\n' for n in ("Vault", "Notes")))
    run(capsys, "reindex", "--root", str(root))

    def found(folder):
        code, out, err = run(capsys, "search", "kiln", "--root", str(root), "--json",
                             "--mode", "keyword", "--folder", folder)
        assert code == 0, err
        return sorted(r["source_file"] for r in json.loads(out)["results"])

    assert found("@Vault/Work/") == found("Vault/Work/") == ["@Vault/Work/plan.md"]
    assert found("Daily/") == ["@Vault/Daily/monday.md"]
    for folder, message in (
            ("Work/", 'memlens: folder "Work/" is in 2 places: "@Notes/Work/", "@Vault/Work/"; '
                      'write the one you mean\n'),
            ("Dialy/", 'memlens: no folder "Dialy/" in the index; did you mean '
                       '"@Vault/Daily/"?\n')):
        code, out, err = run(capsys, "search", "kiln", "--root", str(root), "--folder", folder)
        assert (code, out, err) == (2, "", message)

"""`memlens search --sort relevance|date` and `--no-decay`, and `python -m cli`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cli.main import main
from tests.conftest import REPO, make_root


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = make_root(tmp_path_factory.mktemp("order") / "root")
    assert main(["reindex", "--root", str(root), "--json"]) == 0
    return root


def search(capsys, root, *extra):
    capsys.readouterr()
    code = main(["search", "harbor standup garden", "--root", str(root), "--limit", "10",
                 *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_sort_by_date_shows_the_same_results_newest_first(root, capsys):
    _, out, _ = search(capsys, root, "--json")
    relevance = json.loads(out)
    _, out, _ = search(capsys, root, "--json", "--sort", "date")
    by_date = json.loads(out)
    assert by_date["sort"] == "date" and relevance["sort"] == "relevance"
    dates = [r["content_date"] for r in by_date["results"]]
    dated = [d for d in dates if d]
    assert len(set(dated)) > 1 and dated == sorted(dated, reverse=True)
    assert dates[:len(dated)] == dated  # undated last
    assert {r["id"] for r in by_date["results"]} == {r["id"] for r in relevance["results"]}


def test_no_decay_ranks_without_recency_decay(root, capsys):
    _, out, _ = search(capsys, root, "--json")
    assert json.loads(out)["decay_applied"] is True
    _, out, _ = search(capsys, root, "--json", "--no-decay")
    response = json.loads(out)
    assert response["decay_applied"] is False and response["results"]
    assert all(r["decay"] is None for r in response["results"])
    code, out, _ = search(capsys, root, "--no-decay", "--explain")
    assert code == 0 and "decay: not applied (turned off for this search)" in out
    code, out, _ = search(capsys, root, "--since", "2026-01-01", "--until", "2026-12-31",
                          "--explain")
    assert code == 0 and "decay: not applied (the search names a period; age does not " \
        "rank inside it)" in out
    code, out, _ = search(capsys, root, "--mode", "keyword", "--explain")
    assert code == 0 and "decay: not applied (a single arm ranks this page" in out


def test_a_bad_sort_is_one_line_and_exit_2(root, capsys):
    code, out, err = search(capsys, root, "--sort", "newest")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "invalid choice: 'newest'" in err


def test_python_dash_m_cli_runs_the_command(root):
    proc = subprocess.run([sys.executable, "-m", "cli", "search", "harbor", "--root", str(root),
                           "--mode", "keyword", "--limit", "3"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("3 results in ")


def test_discover_counts_notes_at_every_depth(tmp_path, capsys, monkeypatch):
    # PurePath.match("notes/**/*.md") is false for notes/a.md on Python 3.11: counted through
    # engine.library's route_counts, as the app does
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    root = make_root(tmp_path / "root")
    for rel in ("notes/a.md", "notes/x/b.md", "notes/x/y/z/c.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# A note\n\nbody\n")
    capsys.readouterr()
    assert main(["discover", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("note ")]
    assert len(notes) == 1 and notes[0].split()[1] == "4", out
    assert "6 files routed" in out

"""Bad CLI input is refused in one line with exit 2; output fits the terminal; plurals; --version."""

from __future__ import annotations

import importlib.metadata
import json
import tomllib

import pytest
from rich.cells import cell_len

from cli.main import main
from tests.conftest import REPO, make_root
from tests.conftest import run_cli as run


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = make_root(tmp_path_factory.mktemp("input") / "root")
    deep = root / "notes/projects/an-unreasonably-long-folder-name/and-another-one-below-it"
    deep.mkdir(parents=True)
    (deep / "the-harbor-bridge-retrospective.md").write_text(
        "# Retrospective\n\n" + "the harbor bridge project went over budget because " * 8)
    assert main(["reindex", "--root", str(root)]) == 0
    return root




def refused(capsys, root, *argv) -> str:
    code, out, err = run(capsys, *argv, "--root", str(root))
    assert code == 2, (code, err)
    assert out == "" and err.startswith("memlens: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "usage:" not in err
    return err


@pytest.mark.parametrize("argv, fragments", [
    (["--since", "2026-13-01"], ["2026-13-01", "YYYY-MM-DD, YYYY-MM or YYYY"]),
    (["--until", "2026-02-30"], ["2026-02-30", "day is out of range"]),
    (["--since", "the day after"], ["the day after", "YYYY-MM-DD, YYYY-MM or YYYY",
                                    "time phrase"]),
    (["--since", "2026-7"], ["2026-7", "YYYY-MM-DD, YYYY-MM or YYYY"]),
    (["--since", "2026-05", "--until", "2026-04"], ["--since 2026-05-01 is after --until 2026-04-30"]),
    (["--source", "telgram"], ["telgram", "did you mean Telegram (telegram)?"]),
    (["--source", "note", "--source", "zzzz"], ["zzzz", "known:", "Slack"]),
    (["--limit", "0"], ["--limit", "between 1 and 200"]),
    (["--limit", "1000"], ["--limit", "between 1 and 200"]),
    (["--limit", "ten"], ["--limit", "ten"]),
    (["--mode", "fuzzy"], ["--mode", "fuzzy", "hybrid"]),
])
def test_bad_search_input_is_one_line_and_exit_2(root, capsys, argv, fragments):
    err = refused(capsys, root, "search", "harbor", *argv)
    for fragment in fragments:
        assert fragment in err, err


def test_since_and_until_take_time_phrases(root, capsys, monkeypatch):
    monkeypatch.setenv("MEMLENS_NOW", "2026-04-08T09:00:00")  # a Wednesday
    code, out, err = run(capsys, "search", "harbor", "--root", str(root), "--json",
                         "--since", "last week", "--until", "last week")
    assert code == 0, err
    response = json.loads(out)
    assert (response["since"], response["until"]) == ("2026-03-30", "2026-04-05")
    from cli.args import since_date, until_date

    assert since_date("last week") == "2026-03-30" and until_date("last week") == "2026-04-05"
    assert since_date("March 2026") == "2026-03-01" and until_date("March 2026") == "2026-03-31"


def test_unknown_flag_and_missing_query_are_one_line(root, capsys):
    assert "--frobnicate" in refused(capsys, root, "search", "x", "--frobnicate")
    assert "query" in refused(capsys, root, "search")


def months(capsys, root, query, *argv) -> set[str]:
    code, out, err = run(capsys, "search", query, "--root", str(root), "--json",
                         "--mode", "keyword", "--limit", "50", *argv)
    assert code == 0, err
    return {(r["content_date"] or "")[:7] for r in json.loads(out)["results"]}


def test_month_and_year_expand_to_the_range_start_and_end(root, capsys):
    # the slack logs are dated 2026-03-01, the garden note 2026-04-02
    assert months(capsys, root, "harbor", "--since", "2026-03", "--until", "2026-03") == \
        {"2026-03"}
    assert months(capsys, root, "harbor", "--until", "2026-02") == set()
    assert months(capsys, root, "dahlias", "--since", "2026-04", "--until", "2026-04") == \
        {"2026-04"}
    assert months(capsys, root, "dahlias", "--until", "2026-04-01") == set()
    assert months(capsys, root, "dahlias", "--since", "2026", "--until", "2026") == {"2026-04"}
    assert months(capsys, root, "dahlias", "--since", "2027") == set()


def test_search_table_fits_the_terminal(root, capsys, monkeypatch):
    for columns in (60, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        code, out, _ = run(capsys, "search", "harbor bridge", "--root", str(root),
                           "--limit", "20", "--explain")
        assert code == 0
        lines = out.splitlines()
        assert len(lines) > 20
        assert all(cell_len(line) <= columns for line in lines), \
            max(lines, key=cell_len)
        assert any(line.endswith("…") for line in lines)  # the long snippet is cut
        # a long path is cut at its start: the file name stays
        path = next(line for line in lines if "retrospective.md" in line)
        assert "…" in path and path.endswith("retrospective.md")
        assert ("the-harbor-bridge-retrospective.md" in path) == (columns == 100)


def test_piped_search_output_keeps_paths_whole(root, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)  # and stdout is captured: not a terminal
    code, out, _ = run(capsys, "search", "harbor bridge", "--root", str(root))
    assert code == 0 and "notes/projects/an-unreasonably-long-folder-name/" in out
    assert all(cell_len(line) <= 160 for line in out.splitlines())


def test_plurals(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    one = tmp_path / "one"
    (one / "notes").mkdir(parents=True)
    (one / "notes/only.md").write_text("# Only\n\njust the one kestrel\n")
    outputs = []

    def output(*argv) -> str:
        code, out, err = run(capsys, *argv, "--root", str(one))
        assert code == 0, err
        outputs.append(out + err)
        return out

    out = output("reindex")
    assert out.startswith("indexed 1 file in ") and "(0 unchanged, 0 removed)\n" in out, out
    assert "chunks: 1 written, 0 unchanged, 0 deleted; 1 embedded, 0 pending" in out
    assert "1 file routed" in output("discover")
    (one / "notes/second.md").write_text("# Second\n\nanother\n")
    assert "1 of 2 files needs indexing" in output("discover", "--pending")
    assert "chunks     1 in 1 file; 0 pending embeddings" in output("stats")
    assert output("search", "kestrel", "--mode", "keyword").startswith("1 result in")
    assert "search file rewritten: 1 vector\n" in output("maintenance", "--no-vacuum")
    for text in outputs:
        for wrong in ("1 files", "1 chunks", "1 vectors", "1 results", "1 pending embeddings"):
            assert f" {wrong}" not in f" {text}", text


def pyproject_version() -> str:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def test_version_from_package_metadata(capsys, monkeypatch):
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "9.8.7")
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "memlens 9.8.7\n"


def test_version_falls_back_to_pyproject(capsys, monkeypatch):
    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"memlens {pyproject_version()}\n"

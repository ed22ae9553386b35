"""Entity injection: matching people in queries and placing their profile row."""

from __future__ import annotations

import json
import os

import pytest

from engine.rank.candidates import Candidate
from engine.retrieval.entities import (
    PeopleIndex,
    Person,
    clear_people_cache,
    inject_entity,
    load_people,
    match_person,
    parse_people,
    person_to_content,
)
from tests.conftest import REPO

PEOPLE = {"people": [
    {"name": "Maya", "aliases": [], "relationship": "cousin"},
    {"name": "Maya Chen", "aliases": ["MC", "Chen"], "relationship": "close friend",
     "context": "Met at the climbing gym in 2019", "notes": "Vegetarian; hates phone calls",
     "interests": ["bouldering", "ceramics"],
     "milestones": [{"date": "2019-05-01", "event": "first climb together"},
                    {"date": "2024-09-12", "event": "moved to Oakland"}]},
    {"name": "Sam Rivera", "aliases": ["Sammy"], "relationship": "colleague"},
    {"name": "José Álvarez", "relationship": "neighbour"},
]}


@pytest.fixture
def people():
    return parse_people(PEOPLE)


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_people_cache()
    yield
    clear_people_cache()


def cand(cid: str, score: float) -> Candidate:
    return Candidate(id=cid, content=cid, source_file=f"{cid}.md", source_type="note",
                     score=score)


def who(query, people):
    found = match_person(query, people)
    return (found[0].name, found[1]) if found else None


# --- matching -------------------------------------------------------------------------------

def test_longest_name_first(people):
    assert who("lunch with Maya Chen on friday", people) == ("Maya Chen", "Maya Chen")
    assert who("lunch with maya on friday", people) == ("Maya", "Maya")


def test_alias_matches(people):
    assert who("what did Sammy say", people) == ("Sam Rivera", "Sammy")
    assert who("notes about chen", people) == ("Maya Chen", "Chen")
    assert who("ask MC", people) == ("Maya Chen", "MC")


def test_word_boundaries(people):
    assert who("mayan ruins", people) is None
    assert who("sammyjo", people) is None
    assert who("a chenille sweater", people) is None


def test_diacritics_and_case_insensitive(people):
    assert who("dinner with jose alvarez", people) == ("José Álvarez", "José Álvarez")
    assert who("MAYA CHEN", people) == ("Maya Chen", "Maya Chen")


def test_typo_tolerance(people):
    assert who("coffee with Maya Chenn", people) == ("Maya Chen", "Maya Chen")
    assert who("mya chen birthday", people) == ("Maya Chen", "Maya Chen")
    assert who("sam riviera", people) == ("Sam Rivera", "Sam Rivera")
    assert who("maya chan", people) == ("Maya Chen", "Maya Chen")  # a substitution is one edit


def test_exact_beats_typo_between_equally_long_keys():
    people = parse_people([{"name": "Sam Rivera"}, {"name": "Sam Rivers"}])
    assert who("call sam rivers", people) == ("Sam Rivers", "Sam Rivers")
    assert who("call sam rivera", people) == ("Sam Rivera", "Sam Rivera")


def test_short_keys_get_no_typo_tolerance(people):
    assert who("sammi", people) is None  # one edit from the 5-letter alias "sammy"
    assert who("mia", people) is None


@pytest.mark.parametrize("query", ["may", "I may go to the gym", "chess club", "same river",
                                   "many things", "sammy" + "x" * 3, "the", "", "???"])
def test_no_false_positive_on_common_words(people, query):
    assert match_person(query, people) is None


def test_chen_alone_matches_only_as_alias():
    people = parse_people({"people": [{"name": "Maya Chen"}]})
    assert match_person("notes about chen", people) is None
    assert match_person("notes about maya chen", people) is not None


def test_accepts_people_index(people):
    index = PeopleIndex(people=people)
    assert match_person("Maya Chen", index)[1] == "Maya Chen"


# --- content --------------------------------------------------------------------------------

def test_person_to_content(people):
    maya = people[1]
    assert person_to_content(maya) == (
        "Maya Chen (also: MC, Chen)\n"
        "Relationship: close friend\n"
        "Context: Met at the climbing gym in 2019\n"
        "Notes: Vegetarian; hates phone calls\n"
        "Interests: bouldering, ceramics\n"
        "Milestones:\n"
        "- 2019-05-01: first climb together\n"
        "- 2024-09-12: moved to Oakland")
    assert person_to_content(Person(name="Solo")) == "Solo"


def test_slug(people):
    assert people[1].slug == "maya-chen"
    assert people[3].slug == "jose-alvarez"


# --- injection ------------------------------------------------------------------------------

def test_inject_at_median_even_count(people):
    cands = [cand("a", 0.05), cand("b", 0.04), cand("c", 0.03), cand("d", 0.02)]
    out = inject_entity(cands, "lunch with Maya Chen", people)
    assert [c.id for c in out] == ["a", "b", "profile:maya-chen", "c", "d"]
    p = out[2]
    assert p.score == pytest.approx(0.035, abs=1e-15)
    assert p.injected and p.source_type == "profile"
    assert p.source_file == "profile/relationships.json"
    assert p.metadata == {"person": "Maya Chen", "matched": "Maya Chen",
                          "relationship": "close friend"}
    assert p.content.startswith("Maya Chen")
    assert p.found_by == ["profile"]
    assert len(cands) == 4  # input untouched


def test_inject_at_median_odd_count_does_not_leapfrog_equal(people):
    cands = [cand("a", 0.05), cand("b", 0.04), cand("c", 0.03)]
    out = inject_entity(cands, "Sammy", people)
    assert [c.id for c in out] == ["a", "b", "profile:sam-rivera", "c"]
    assert out[2].score == 0.04


def test_inject_with_no_candidates(people):
    out = inject_entity([], "Maya Chen", people)
    assert [(c.id, c.score) for c in out] == [("profile:maya-chen", 0.0)]


def test_only_one_injection_per_query(people):
    once = inject_entity([cand("a", 0.1)], "Maya Chen and Sam Rivera", people)
    assert sum(c.injected for c in once) == 1
    twice = inject_entity(once, "Sam Rivera", people)
    assert twice == once


def test_skip_if_profile_already_present(people):
    present = Candidate(id="profile:maya-chen", content="x", source_file="p", source_type="profile",
                        score=0.5)
    cands = [present, cand("a", 0.1)]
    assert inject_entity(cands, "Maya Chen", people) == cands


def test_no_match_leaves_list_alone(people):
    cands = [cand("a", 0.1)]
    assert inject_entity(cands, "harbor bridge", people) == cands


# --- loading --------------------------------------------------------------------------------

def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def test_load_people_file(tmp_path):
    path = tmp_path / "profile" / "relationships.json"
    write(path, PEOPLE)
    index = load_people(path)
    assert [p.name for p in index.people] == ["Maya", "Maya Chen", "Sam Rivera", "José Álvarez"]
    assert index.load_error is None


def test_lenient_shapes(tmp_path):
    path = tmp_path / "relationships.json"
    write(path, [{"name": "Ana", "aliases": "Annie", "interests": "chess",
                  "milestones": ["graduated", {"event": "moved", "date": 2020}, 5]},
                 {"no_name": True}, "junk", {"name": ""}])
    [ana] = load_people(path).people
    assert ana.aliases == ["Annie"] and ana.interests == ["chess"]
    assert ana.milestones == [{"date": "", "event": "graduated"},
                              {"date": "2020", "event": "moved"}]
    assert ana.relationship is None


def test_broken_json_gives_no_people_and_an_error(tmp_path):
    path = tmp_path / "relationships.json"
    write(path, '{"people": [ {"name": "Maya"')
    index = load_people(path)
    assert index.people == []
    assert "invalid JSON" in index.load_error
    write(path, '{"people": "nope"}')
    os.utime(path, ns=(1, 10**18))
    assert load_people(path).people == [] and load_people(path).load_error


def test_missing_file_is_not_an_error(tmp_path):
    index = load_people(tmp_path / "nope.json")
    assert index.people == [] and index.load_error is None


def test_cache_and_reload_on_change(tmp_path):
    path = tmp_path / "relationships.json"
    write(path, {"people": [{"name": "Maya"}]})
    first = load_people(path)
    assert load_people(path) is first  # cached
    write(path, {"people": [{"name": "Maya"}, {"name": "Sam"}]})
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    second = load_people(path)
    assert second is not first
    assert [p.name for p in second.people] == ["Maya", "Sam"]
    path.unlink()
    assert load_people(path).people == []


def test_the_length_and_letters_bound_never_drops_a_gram_that_reaches_the_threshold():
    """fuzzy_score skips n-grams whose bag distance already rules them out (no rapidfuzz
    import for most searches); the bound must never skip one that would match."""
    import random

    from rapidfuzz.distance import Levenshtein

    from engine.retrieval.entities import FUZZY_THRESHOLD, _may_reach

    rng = random.Random(5)
    letters = "aeimnorst "
    checked = 0
    for _ in range(20_000):
        key = "".join(rng.choice(letters) for _ in range(rng.randint(4, 12))).strip() or "maya"
        gram = list(key)
        for _ in range(rng.randint(0, 3)):  # a few random edits: many pairs near the threshold
            i = rng.randrange(len(gram) + 1)
            op = rng.choice("ids")
            if op == "i":
                gram.insert(i, rng.choice(letters))
            elif gram and i < len(gram):
                if op == "d":
                    del gram[i]
                else:
                    gram[i] = rng.choice(letters)
        gram = "".join(gram)
        if 100.0 * Levenshtein.normalized_similarity(key, gram) >= FUZZY_THRESHOLD:
            checked += 1
            assert _may_reach(key, gram), (key, gram)
    assert checked > 1000
    assert not _may_reach("maya chen", "dahlias n")


def test_a_query_naming_nobody_does_not_load_rapidfuzz():
    import subprocess
    import sys

    code = ("import sys\n"
            "from engine.retrieval.entities import match_person, parse_people\n"
            f"people = parse_people({PEOPLE!r})\n"
            "assert match_person('dahlias near the shed', people) is None\n"
            "assert 'rapidfuzz' not in sys.modules\n"
            "assert match_person('lunch with Maya Chenn', people)[0].name == 'Maya Chen'\n"
            "assert 'rapidfuzz' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)

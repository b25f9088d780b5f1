"""The coverage table of the rulebooks (``simulation/rules/COVERAGE.md``): every sentence of both
rulebooks is quoted there, each with the scenario files (or tests) that test it or the reason it
cannot apply on a simulated table, and every file it names exists."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "simulation" / "rules" / "COVERAGE.md"
RULES = ROOT.parent / "shared" / "spec" / "rules"
RULEBOOKS = {"one_touch": RULES / "button-soccer-rulebook.en.txt", "mbs": RULES / "mbs-online-rules.es.txt"}
SCENARIOS = ROOT / "tests" / "simulation" / "scenarios"
SHARED = ROOT.parent / "shared" / "scenarios"
MBS_PART = "## The MBS online rules"


def sentences(text: str) -> list[str]:
    """The rulebook's sentences: each line, split after a full stop, colon, question or
    exclamation mark followed by a capital (or an opening quote or bracket)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            out += re.split(r'(?<=[.?!:])\s+(?=[A-ZÁÉÍÓÚÑ¿¡"“(])', line)
    return out


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def parts() -> dict[str, str]:
    text = TABLE.read_text(encoding="utf-8")
    head, _, mbs = text.partition(MBS_PART)
    assert mbs, f"COVERAGE.md has a part headed {MBS_PART!r}"
    return {"one_touch": head, "mbs": mbs}


@pytest.mark.skipif(not RULES.is_dir(), reason="the rulebooks live in ../shared/spec/rules")
@pytest.mark.parametrize("rules", list(RULEBOOKS))
def test_every_sentence_of_the_rulebook_is_quoted(rules):
    doc = squeeze(parts()[rules])
    missing = [s for s in sentences(RULEBOOKS[rules].read_text(encoding="utf-8")) if squeeze(s) not in doc]
    assert missing == []


def rows(text: str):
    for line in text.splitlines():
        if line.startswith('| "'):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            yield cells


@pytest.mark.parametrize("rules", list(RULEBOOKS))
def test_every_sentence_has_its_tests_or_its_reason(rules):
    bare = []
    for cells in rows(parts()[rules]):
        assert len(cells) == 3, cells[0][:60]
        quote, what, tested = cells
        if not tested and what != "Heading." and "Cannot apply" not in what:
            bare.append(quote[:70])
    assert bare == []


@pytest.mark.parametrize("rules", list(RULEBOOKS))
def test_every_file_named_exists(rules):
    text = parts()[rules]
    missing = []
    for name in re.findall(r"`([\w./-]+\.json)`", text):
        if not ((SCENARIOS / rules / name).is_file() or (SHARED / rules / name).is_file()):
            missing.append(name)
    for path, test in re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text):
        source = ROOT / path
        if not source.is_file() or not re.search(rf"^def {test}\(", source.read_text(), re.M):
            missing.append(f"{path}::{test}")
    assert missing == []


def test_every_scenario_of_the_project_is_named_in_the_table():
    """A referee scenario that tests no sentence of the rulebooks would be a gap in the table."""
    named = set(re.findall(r"`([\w-]+)\.json`", TABLE.read_text(encoding="utf-8")))
    files = {p.stem for p in SCENARIOS.rglob("*.json")}
    assert sorted(files - named) == []

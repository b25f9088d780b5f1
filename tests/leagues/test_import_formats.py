"""``import_results`` and the results import for the formats paired or drawn by the site: a
double elimination cannot be read back from a results file (its two brackets and grand final
are links between fixtures a file does not carry), so it is refused with a sentence saying so,
nothing saved; a Swiss created by ``--create --format swiss`` takes its ``rounds`` from the
file's rounds (or ``--rounds``). On PostgreSQL, with the recomputation run on commit."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import translation

from leagues.models import Competition, Entrant, Fixture
from leagues.services.fixtures import fixtures_generate
from leagues.services.imports import ImportFileError, results_import
from leagues.services.results import result_record

pytestmark = pytest.mark.django_db(transaction=True)


def _played(slug: str, fmt: str, n: int, **extra) -> Competition:
    competition = Competition.objects.create(name=slug, slug=slug, format=fmt, first_date="2027-02-06",
                                             lots_seed=4, **extra)
    for i in range(1, n + 1):
        Entrant.objects.create(competition=competition, name=f"P{i}", seed=i)
    rounds = extra.get("rounds") or 1
    for _ in range(rounds):
        fixtures_generate(competition=competition)
        while ready := list(competition.fixtures.filter(status=Fixture.Status.SCHEDULED, home__isnull=False,
                                                        away__isnull=False).select_related("home", "away")):
            fixture = ready[0]
            home_wins = fixture.home.seed < fixture.away.seed
            result_record(fixture=fixture, home_goals=2 if home_wins else 0, away_goals=0 if home_wins else 2)
    return competition


def _export(competition: Competition, tmp_path) -> str:
    text = Client().get(f"/competitions/{competition.slug}/export/results.csv").content.decode("utf-8-sig")
    path = tmp_path / f"{competition.slug}.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _refused(*args) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("import_results", *args, stdout=StringIO())
    assert refused.value.returncode == 2
    return str(refused.value)


def test_a_double_elimination_is_refused_by_the_import_with_a_sentence_and_nothing_saved(tmp_path):
    path = _export(_played("dupla", "double_elimination", 8), tmp_path)
    said = _refused(path, "--competition", "dupla-copy", "--create", "--format", "double_elimination")
    assert "a double elimination cannot be imported" in said, said
    assert not Competition.objects.filter(slug="dupla-copy").exists()

    # into an existing one, as the service and the command read it
    target = Competition.objects.create(name="Dupla 2", slug="dupla-2", format="double_elimination")
    with pytest.raises(ImportFileError, match="a double elimination cannot be imported"):
        results_import(competition=target, text=open(path, encoding="utf-8").read())
    said = _refused(path, "--competition", "dupla-2")
    assert "a double elimination cannot be imported" in said
    assert not target.fixtures.exists() and not target.entrants.exists()
    with translation.override("pt-br"):
        said = _refused(path, "--competition", "dupla-2")
    assert "dupla eliminação não pode ser importada" in said, said


def test_a_swiss_created_by_the_import_takes_its_rounds_from_the_file(tmp_path):
    source = _played("suico", "swiss", 7, rounds=3)
    path = _export(source, tmp_path)
    call_command("import_results", path, "--competition", "suico-copy", "--create", "--format", "swiss",
                 stdout=StringIO())
    copy = Competition.objects.get(slug="suico-copy")
    assert copy.rounds == 3
    assert copy.fixtures.filter(status=Fixture.Status.BYE, away__isnull=True).count() == 3
    # valid as a Swiss: its page says every round is paired, the API that all are
    response = Client().get(f"/competitions/{copy.slug}/")
    assert response.status_code == 200
    assert "Round 3 of 3" in response.content.decode()


def test_rounds_may_be_given_for_more_rounds_than_the_file_has_played(tmp_path):
    path = _export(_played("suico-b", "swiss", 7, rounds=2), tmp_path)
    call_command("import_results", path, "--competition", "suico-b-copy", "--create", "--format", "swiss",
                 "--rounds", "5", stdout=StringIO())
    assert Competition.objects.get(slug="suico-b-copy").rounds == 5
    said = _refused(path, "--competition", "suico-b-bad", "--create", "--format", "swiss", "--rounds", "1")
    assert "--rounds" in said and "2" in said, said  # fewer than the file's rounds
    said = _refused(path, "--competition", "suico-b-bad", "--create", "--format", "league", "--rounds", "3")
    assert "--rounds" in said, said  # a Swiss's setting only
    assert not Competition.objects.filter(slug="suico-b-bad").exists()

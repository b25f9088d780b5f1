"""``import_results`` and ``standings`` (COMPETITIONS.md §6-7), on the real files too."""
import json
import threading
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import translation

from leagues.management.commands import import_results as import_command
from leagues.models import Competition, Entrant, Fixture, Result
from tests.conftest import _require_services

pytestmark = pytest.mark.django_db

DATA = Path("/work/shared/data")
if not DATA.exists():
    DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def standings_json(slug):
    out = StringIO()
    call_command("standings", slug, "--json", stdout=out)
    return json.loads(out.getvalue())


def summary(table):
    return [(r["entrant"], r["points"], r["goals_for"], r["goals_against"]) for r in table["rows"]]


def write(tmp_path, text, name="results.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.skipif(not DATA.exists(), reason="shared data directory not found")
def test_fbfm_file_ranks_goal_difference_first_as_its_federation_did():
    call_command("import_results", str(DATA / "fbfm-2012-copa-dos-campeoes-grupo-c.csv"), "--competition",
                 "fbfm-2012-c", "--create", "--name", "Copa dos Campeões 2012", "--preset", "fifa_2018",
                 stdout=StringIO())
    data = standings_json("fbfm-2012-c")
    assert data["competition"] == "fbfm-2012-c"
    assert [t["group"] for t in data["tables"]] == ["C"]
    assert summary(data["tables"][0]) == [
        ("Player 1 (Estrela Solitária)", 6, 8, 4),
        ("Player 2 (Centenário)", 6, 5, 6),
        ("Player 3 (Verdão)", 3, 5, 5),
        ("Player 4", 3, 2, 5),
    ]
    rows = data["tables"][0]["rows"]
    assert rows[2]["tiebreak"] == "level on 3 points with Player 4; ahead on goal difference, 0 against -3"


@pytest.mark.skipif(not DATA.exists(), reason="shared data directory not found")
def test_clun_file_double_round_robin():
    call_command("import_results", str(DATA / "clun-trophy-2017.csv"), "--competition", "clun-2017",
                 "--create", "--name", "Clun Trophy 2017", "--preset", "fistf", "--points", "3,1,0",
                 stdout=StringIO())
    data = standings_json("clun-2017")
    assert [t["group"] for t in data["tables"]] == [None]
    assert summary(data["tables"][0]) == [
        ("P1 (Clun)", 18, 8, 0), ("P2 (Willenhall)", 12, 7, 3), ("P3 (Rugeley)", 4, 1, 5), ("P4 (Walsall)", 1, 0, 8),
    ]
    assert data["tables"][0]["rows"][0] == {
        "position": 1, "entrant": "P1 (Clun)", "played": 6, "won": 6, "drawn": 0, "lost": 0,
        "goals_for": 8, "goals_against": 0, "goal_difference": 8, "points": 18, "tiebreak": "",
    }


WC_2018_H = """group,round,home,away,home_goals,away_goals,home_discipline,away_discipline
H,1,Colombia,Japan,1,2,2,1
H,1,Poland,Senegal,1,2,1,2
H,2,Japan,Senegal,2,2,2,3
H,2,Poland,Colombia,0,3,1,0
H,3,Japan,Poland,0,1,1,1
H,3,Senegal,Colombia,0,1,1,2
"""


def test_standings_json_is_exactly_the_spec_shape(tmp_path):
    call_command("import_results", write(tmp_path, WC_2018_H), "--competition", "wc-2018-h", "--create",
                 "--name", "World Cup 2018, group H", "--preset", "fifa_2018", stdout=StringIO())
    data = standings_json("wc-2018-h")
    assert data == {"competition": "wc-2018-h", "tables": [{"group": "H", "rows": data["tables"][0]["rows"]}]}
    rows = data["tables"][0]["rows"]
    assert rows[0] == {"position": 1, "entrant": "Colombia", "played": 3, "won": 2, "drawn": 0, "lost": 1,
                       "goals_for": 5, "goals_against": 2, "goal_difference": 3, "points": 6, "tiebreak": ""}
    assert rows[1]["entrant"] == "Japan"
    assert rows[1]["tiebreak"] == "level on 4 points with Senegal; ahead on discipline, -4 against -6"
    out = StringIO()
    call_command("standings", "wc-2018-h", stdout=out)
    assert "Group H" in out.getvalue() and "Colombia" in out.getvalue()


def test_results_added_to_an_existing_competition(tmp_path):
    first = "home,away,home_goals,away_goals\nA,B,1,0\n"
    call_command("import_results", write(tmp_path, first), "--competition", "cup", "--create", "--name", "Cup",
                 stdout=StringIO())
    call_command("import_results", write(tmp_path, "home,away,home_goals,away_goals\nB,A,2,0\n", "more.csv"),
                 "--competition", "cup", stdout=StringIO())
    assert summary(standings_json("cup")["tables"][0]) == [("B", 3, 2, 1), ("A", 3, 1, 2)]


def test_knockout_file_with_walkover_disqualification_and_shoot_out(tmp_path):
    text = (
        "stage,round,home,away,home_goals,away_goals,outcome,outcome_side,home_et_goals,away_et_goals,home_shootout,away_shootout\n"
        "Semi-finals,1,A,B,1,1,,,0,0,4,3\n"
        "Semi-finals,1,C,D,3,1,disqualification,away,,,,\n"
        "Final,2,A,C,0,0,walkover,home,,,,\n"
    )
    call_command("import_results", write(tmp_path, text), "--competition", "ko", "--create", "--name", "KO",
                 "--format", "knockout", stdout=StringIO())
    results = {(r.fixture.home.name, r.fixture.away.name): r
               for r in Result.objects.select_related("fixture__home", "fixture__away", "winner")}
    assert (results["A", "B"].home_goals, results["A", "B"].away_goals, results["A", "B"].winner.name) == (1, 1, "A")
    assert (results["C", "D"].home_goals, results["C", "D"].away_goals) == (2, 0)
    assert (results["A", "C"].home_goals, results["A", "C"].away_goals, results["A", "C"].winner.name) == (0, 2, "C")
    assert Fixture.objects.get(home__name="A", away__name="C").status == Fixture.Status.WALKOVER


HEADER = "home,away,home_goals,away_goals"


@pytest.mark.parametrize(("text", "where", "args"), [
    ("home,visitor,home_goals,away_goals\nA,B,1,0\n", "line 1, column visitor", []),
    ("home,home_goals,away_goals\nA,1,0\n", "line 1, column away", []),
    (f"{HEADER}\nA,B,1,0\nC,C,2,0\n", "line 3, column away", []),
    (f"{HEADER}\nA,B,1,0\nC,D,-1,0\n", "line 3, column home_goals", []),
    (f"{HEADER}\nA,B,x,0\n", "line 2, column home_goals", []),
    (f"{HEADER},outcome\nA,B,1,0,forfeit\n", "line 2, column outcome", []),
    (f"{HEADER},outcome\nA,B,0,0,walkover\n", "line 2, column outcome_side", []),
    (f"{HEADER},date\nA,B,1,0,18/05/2024\n", "line 2, column date", []),
    (f"stage,{HEADER}\nFinal,A,B,1,1\n", "line 2, column home_shootout", []),
    (f"{HEADER}\nA,B,1,0\nC,D,2,2\n", "line 3, column home_shootout", ["--format", "knockout"]),
    (f"{HEADER}\nA,B,1,0,7\n", "line 2", []),
    ("", "line 1", []),
    # goal counts beyond the result API's 0..99
    (f"{HEADER}\nA,B,9223372036854775808,0\n", "line 2, column home_goals", []),
    (f"{HEADER}\nA,B,1,3000000000\n", "line 2, column away_goals", []),
    (f"{HEADER}\nA,B,100,0\n", "line 2, column home_goals", []),
    (f"{HEADER}\nA,B,1,\u0662\n", "line 2, column away_goals", []),
    (f"{HEADER},home_discipline\nA,B,1,0,3000000000\n", "line 2, column home_discipline", []),
    (f"stage,{HEADER},home_et_goals,away_et_goals\nFinal,A,B,1,1,9223372036854775808,0\n",
     "line 2, column home_et_goals", []),
    (f"stage,{HEADER},home_shootout,away_shootout\nFinal,A,B,1,1,5,3000000000\n",
     "line 2, column away_shootout", []),
])
def test_a_bad_file_is_refused_whole_with_its_line_and_column(tmp_path, text, where, args):
    with pytest.raises(CommandError) as exc:
        call_command("import_results", write(tmp_path, text), "--competition", "bad", "--create", "--name", "Bad",
                     *args, stdout=StringIO())
    assert where in str(exc.value)
    assert "nothing imported" in str(exc.value)
    assert not Competition.objects.filter(slug="bad").exists()
    assert not Entrant.objects.exists() and not Result.objects.exists()


def test_a_bad_file_adds_nothing_to_an_existing_competition(tmp_path):
    call_command("import_results", write(tmp_path, f"{HEADER}\nA,B,1,0\n"), "--competition", "c", "--create",
                 "--name", "C", stdout=StringIO())
    with pytest.raises(CommandError, match="line 3, column away"):
        call_command("import_results", write(tmp_path, f"{HEADER}\nA,B,2,0\nB,Zed,1,0\n", "two.csv"),
                     "--competition", "c", stdout=StringIO())
    assert Result.objects.count() == 1


def test_a_refused_file_is_explained_in_the_active_language(tmp_path):
    path = write(tmp_path, f"{HEADER},colour\nA,B,2,0,red\n")
    with translation.override("es"), pytest.raises(CommandError) as exc:
        call_command("import_results", path, "--competition", "es-bad", "--create", "--name", "Mala",
                     stdout=StringIO())
    message = str(exc.value)
    assert "línea 1, columna colour: columna desconocida; las columnas son home, away" in message
    assert message.endswith("; no se ha importado nada")
    assert "unknown column" not in message and "nothing imported" not in message
    assert not Competition.objects.filter(slug="es-bad").exists()


def test_command_errors():
    with pytest.raises(CommandError, match="no competition"):
        call_command("standings", "nope")
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_results", "/nonexistent.csv", "--competition", "x", "--create")
    with pytest.raises(CommandError, match="--points"):
        call_command("import_results", str(DATA / "clun-trophy-2017.csv"), "--competition", "x", "--create",
                     "--points", "3,1")


def test_a_level_knockout_row_without_a_shoot_out_says_it_needs_one(tmp_path):
    text = f"stage,{HEADER},home_et_goals,away_et_goals\nFinal,A,B,1,1,0,0\n"
    with pytest.raises(CommandError) as exc:
        call_command("import_results", write(tmp_path, text), "--competition", "ko", "--create", "--name", "KO",
                     stdout=StringIO())
    message = str(exc.value)
    assert "line 2, column home_shootout" in message
    assert "level after extra time" in message and "needs a shoot-out" in message
    assert not Competition.objects.filter(slug="ko").exists() and not Result.objects.exists()


def test_goal_counts_up_to_99_are_imported(tmp_path):
    call_command("import_results", write(tmp_path, f"{HEADER}\nA,B,99,0\n"), "--competition", "c", "--create",
                 "--name", "C", stdout=StringIO())
    assert Result.objects.get().home_goals == 99


def test_standings_text_prints_a_zero_goal_difference_as_0(tmp_path):
    call_command("import_results", write(tmp_path, f"{HEADER}\nA,B,1,1\nC,D,2,0\n"), "--competition", "gd",
                 "--create", "--name", "GD", stdout=StringIO())
    out = StringIO()
    call_command("standings", "gd", stdout=out)
    rows = {line.split()[1]: line.split() for line in out.getvalue().splitlines()[2:]}
    assert rows["A"][7] == "0" and rows["B"][7] == "0"
    assert rows["C"][7] == "+2" and rows["D"][7] == "-2"
    assert "+0" not in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_two_creates_of_one_slug_at_once_the_loser_is_refused_in_one_line(tmp_path, monkeypatch):
    """On PostgreSQL, two ``--create`` runs of one slug, each in its own connection, both past
    the check that the slug is free before either saves: one creates the competition, the other
    is the command's refusal (exit 2, the sentence of a slug taken), not an IntegrityError."""
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        if _require_services():
            pytest.fail("REQUIRE_SERVICES=1 but DATABASE_URL is not PostgreSQL")
        pytest.skip("a race needs PostgreSQL (SQLite serialises every write)")
    path = write(tmp_path, f"{HEADER}\nA,B,1,0\nC,D,2,2\n")
    barrier = threading.Barrier(2)
    looked_up = import_command.competition_get

    def competition_get(**kwargs):
        found = looked_up(**kwargs)
        barrier.wait(10)  # both have found the slug free before either creates it
        return found

    monkeypatch.setattr(import_command, "competition_get", competition_get)
    outcomes = []

    def create():
        try:
            call_command("import_results", path, "--competition", "race", "--create", "--name", "Race",
                         stdout=StringIO())
            outcomes.append("created")
        except CommandError as exc:
            outcomes.append((exc.returncode, str(exc)))
        except Exception as exc:  # noqa: BLE001 - what the loser raised is the finding
            outcomes.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    monkeypatch.undo()
    with pytest.raises(CommandError) as taken:  # the slug taken before the run: the same sentence
        call_command("import_results", path, "--competition", "race", "--create", "--name", "Race",
                     stdout=StringIO())
    refusal = (2, "a competition 'race' exists already; drop --create to add results to it")
    assert (taken.value.returncode, str(taken.value)) == refusal
    assert sorted(outcomes, key=str) == sorted(["created", refusal], key=str)
    assert Competition.objects.filter(slug="race").count() == 1
    assert Result.objects.filter(fixture__competition__slug="race").count() == 2

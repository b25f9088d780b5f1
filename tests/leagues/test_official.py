"""Every line of the result table of COMPETITIONS.md §4."""
import pytest

from leagues.rules.official import Official, Recorded, ResultError, Rules, official_result

LEAGUE = Rules(knockout=False)
KNOCKOUT = Rules(knockout=True)


def test_played_is_the_score_on_the_table():
    assert official_result(Recorded(3, 1)) == Official(3, 1, "home")
    assert official_result(Recorded(0, 2)) == Official(0, 2, "away")


def test_a_league_match_may_end_drawn():
    assert official_result(Recorded(1, 1), LEAGUE) == Official(1, 1, "")


def test_extra_time_goals_count():
    assert official_result(Recorded(1, 1, home_et_goals=0, away_et_goals=1), KNOCKOUT) == Official(1, 2, "away")


def test_a_shoot_out_decides_who_goes_through_but_is_recorded_apart():
    # 1-1, 4-3 on penalties: the official score stays 1-1.
    assert official_result(Recorded(1, 1, home_shootout=4, away_shootout=3), KNOCKOUT) == Official(1, 1, "home")
    assert official_result(
        Recorded(0, 0, home_et_goals=1, away_et_goals=1, home_shootout=5, away_shootout=6), KNOCKOUT
    ) == Official(1, 1, "away")


def test_a_knockout_match_cannot_end_level_without_a_shoot_out():
    with pytest.raises(ResultError) as exc:
        official_result(Recorded(2, 2), KNOCKOUT)
    assert exc.value.field == "home_shootout"
    with pytest.raises(ResultError):
        official_result(Recorded(1, 1, home_shootout=3, away_shootout=3), KNOCKOUT)
    with pytest.raises(ResultError):
        official_result(Recorded(1, 1), Rules(knockout=True, shootout=False))


@pytest.mark.parametrize("recorded", [
    Recorded(2, 1, home_shootout=4, away_shootout=3),      # not level
    Recorded(2, 1, home_et_goals=1),                        # extra time only after a draw
])
def test_extra_time_and_shoot_out_only_after_a_draw(recorded):
    with pytest.raises(ResultError):
        official_result(recorded, KNOCKOUT)


def test_no_extra_time_or_shoot_out_in_a_league():
    with pytest.raises(ResultError):
        official_result(Recorded(1, 1, home_shootout=4, away_shootout=3), LEAGUE)
    with pytest.raises(ResultError):
        official_result(Recorded(1, 1, home_et_goals=1), LEAGUE)


def test_sudden_death_ends_one_goal_apart():
    assert official_result(Recorded(0, 0, home_shootout=7, away_shootout=6), KNOCKOUT).winner_side == "home"
    with pytest.raises(ResultError):
        official_result(Recorded(0, 0, home_shootout=8, away_shootout=6), KNOCKOUT)


@pytest.mark.parametrize(("side", "expected"), [("home", Official(0, 2, "away")), ("away", Official(2, 0, "home"))])
def test_walkover_the_side_that_did_not_show_loses_by_the_walkover_score(side, expected):
    assert official_result(Recorded(0, 0, outcome="walkover", outcome_side=side)) == expected


def test_walkover_score_is_the_competitions():
    rules = Rules(walkover_score=(3, 0))
    assert official_result(Recorded(0, 0, outcome="walkover", outcome_side="away"), rules) == Official(3, 0, "home")


@pytest.mark.parametrize(("opponent", "disqualified", "expected"), [
    (5, 1, (5, 1)),   # winning by more than two: the score stands
    (3, 1, (2, 0)),   # by two: 2-0
    (0, 1, (2, 0)),   # losing: 2-0
    (3, 0, (3, 0)),   # by three: stands
    (2, 2, (2, 0)),
    (1, 0, (2, 0)),
])
@pytest.mark.parametrize("disqualified_side", ["home", "away"])
def test_disqualification_loses_2_0_unless_the_opponent_was_winning_by_more(
    opponent, disqualified, expected, disqualified_side
):
    if disqualified_side == "away":
        recorded = Recorded(opponent, disqualified, outcome="disqualification", outcome_side="away")
        assert official_result(recorded) == Official(expected[0], expected[1], "home")
    else:
        recorded = Recorded(disqualified, opponent, outcome="disqualification", outcome_side="home")
        assert official_result(recorded) == Official(expected[1], expected[0], "away")


def test_disqualification_in_a_knockout_needs_no_shoot_out():
    recorded = Recorded(1, 1, outcome="disqualification", outcome_side="home")
    assert official_result(recorded, KNOCKOUT) == Official(0, 2, "away")


def test_bye_is_no_match():
    assert official_result(Recorded(0, 0, outcome="bye")) == Official(0, 0, "home")


@pytest.mark.parametrize(("recorded", "field"), [
    (Recorded(-1, 0), "home_goals"),
    (Recorded(0, 0, outcome="forfeit"), "outcome"),
    (Recorded(0, 0, outcome="walkover"), "outcome_side"),
    (Recorded(0, 0, outcome="disqualification", outcome_side="left"), "outcome_side"),
    (Recorded(1, 0, outcome_side="home"), "outcome_side"),
])
def test_bad_values_name_their_field(recorded, field):
    with pytest.raises(ResultError) as exc:
        official_result(recorded)
    assert exc.value.field == field

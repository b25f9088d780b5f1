"""The referee speaks in sentences (issue 17): every call and every refusal reaches the board as
a sentence with the players' names and a link to the rule's section on ``/rules/``, never as a
bare key; the rules page shows each rulebook's text by section; the feed carries the official
result as a sentence and the buttons that may not play."""
from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from matches import sentences
from matches.rulebooks import find_section, rule_label, rulebooks
from matches.services import online
from simulation.rules import mbs as mbs_rules
from simulation.rules.base import Referee
from simulation.rules.one_touch import OneTouchReferee
from tests.matches.conftest import make_league, result_of, setup_match, users_of

NAMES = {"home": {"name": "Marco Rossi", "short": "Rossi"}, "away": {"name": "Rui Costa", "short": "Costa"}}
BARE_KEY = re.compile(r"\b[a-z]+_[a-z_]+\b")


@pytest.mark.parametrize("event, sentence", [
    ({"type": "technical_foul", "side": "home", "reason": "triangle", "rule": "rulebook 9.5"},
     "Technical foul by Rossi: the ball stopped inside a triangle of three of their buttons 18 cm or less apart."),
    ({"type": "technical_foul", "side": "away", "reason": "kick_off", "rule": "rulebook 7",
      "detail": "the first touch must move the ball forward and keep it in the centre circle"},
     "Technical foul by Costa at the kick-off: the first touch must move the ball forward and keep it in the centre circle."),
    ({"type": "technical_foul", "side": "home", "reason": "delay_of_game"},
     "Technical foul by Rossi: delay of game, the turn ran out."),
    ({"type": "technical_foul", "side": "home", "reason": "rectangle"},
     "Technical foul by Rossi: the ball stayed between two of their buttons 6 cm or less apart."),
    ({"type": "technical_foul", "side": "away", "reason": "inversion_turn_timeout"},
     "Technical foul by Costa: the set piece was not taken in time."),
    ({"type": "turn_timeout", "side": "away"}, "The turn of Costa ran out."),
    ({"type": "goal", "side": "home", "piece": "9"}, "GOAL! Rossi scores with button 9."),
    ({"type": "goal", "side": "away", "own_goal": True}, "GOAL for Costa: an own goal."),
    ({"type": "restart", "kind": "indirect_free_kick", "side": "away"}, "Indirect free kick to Costa."),
    ({"type": "foul", "side": "home", "piece": "4", "fouled": "gk"},
     "Foul by Rossi: button 4 touched the goalkeeper before the ball."),
    ({"type": "foul", "side": "away", "piece": "2", "fouled": {"side": "home", "piece": "7"}},
     "Foul by Costa: button 2 touched button 7 before the ball."),
    ({"type": "possession_lost", "side": "home", "reason": "ball_not_touched"},
     "Rossi loses possession: the button did not touch the ball."),
    ({"type": "inversion", "side": "home", "kind": "throw_in", "reason": "missed_ball"},
     "Inversion: Rossi missed the ball at the throw-in; the restart passes to Costa."),
    ({"type": "expulsion", "side": "away", "piece": "3", "reason": "violent_foul"},
     "Button 3 of Costa is sent off for a violent foul."),
    ({"type": "piece_out", "side": "home", "piece": "6"}, "Button 6 of Rossi left the field."),
    ({"type": "piece_moved", "side": "away", "piece": "5", "reason": "goal_area"},
     "Button 5 of Costa is moved out of the goal area."),
    ({"type": "piece_moved", "side": "home", "piece": "3", "reason": "pushed_back_by_choice"},
     "Rossi moves button 3 back from the spot of the foul."),
    ({"type": "shot_declared", "side": "home"}, "Rossi declares a shot on goal; Costa may place the goalkeeper."),
    ({"type": "disqualification", "side": "away"}, "Costa is disqualified: four buttons have been sent off."),
    ({"type": "period_end", "period": "first_half"}, "Half time."),
    ({"type": "period_end", "period": "second_half"}, "End of the second half."),
    ({"type": "full_time", "score": {"home": 2, "away": 1}}, "Full time: Rossi 2–1 Costa."),
])
def test_a_call_reads_as_a_sentence_with_the_players_name(event, sentence):
    assert sentences.event_sentence(event, NAMES) == sentence


def test_a_call_with_the_referees_message_reads_from_its_catalogue():
    event = {"type": "technical_foul", "side": "home", "reason": "triangle", "rule": "rulebook 9.5",
             "message": {"key": "one_touch.technical_foul.triangle", "params": {"side": "home", "rule": "rulebook 9.5"}}}
    assert sentences.event_sentence(event, NAMES) == (
        "Technical foul against Rossi: the ball was left inside the triangle of three of its buttons.")
    unknown = {**event, "message": {"key": "one_touch.no_such_call", "params": {}}}
    assert sentences.event_sentence(unknown, NAMES).startswith("Technical foul by Rossi: ")  # from its fields


def test_a_move_and_a_refusal_read_as_sentences():
    flick = {"type": "flick", "side": "home", "piece": "7", "angle_deg": 3, "speed_mm_s": 1583.4}
    assert sentences.action_sentence(flick, NAMES) == "Rossi flicks button 7 at 1583 mm/s."
    assert sentences.action_sentence({"type": "place_goalkeeper", "side": "away"}, NAMES) == "Costa places the goalkeeper."
    assert sentences.action_sentence({"type": "declare_shot", "side": "home"}, NAMES) == ""  # its event says it
    walkover = {"home": 0, "away": 2, "text": "0-2 (walkover)"}
    assert sentences.official_sentence(walkover, NAMES) == "Official result: Rossi 0–2 Costa (walkover)."
    assert sentences.refusal_sentence("button 7 came back from out of bounds and sits out this turn") == \
        "Not allowed. Button 7 came back from out of bounds and sits out this turn."
    message = {"key": "one_touch.refused.back_from_out", "params": {"side": "away", "piece": "7", "rule": "rulebook 8"}}
    assert sentences.refusal_sentence("whatever", message, NAMES) == \
        "Not allowed. Button 7 came back from out of the field and sits out this turn."
    barred = sentences.may_not_play({"7": message}, NAMES)
    assert barred == {"7": {"text": "Button 7 came back from out of the field and sits out this turn.",
                            "rule": "rulebook 8", "rule_url": "/rules/#rulebook-8", "rule_label": "Rulebook 8"}}


def test_every_rule_the_referees_cite_has_its_section_on_the_rules_page():
    cited = set(Referee.sections.values()) | set(OneTouchReferee.sections.values())
    cited |= {value for name, value in vars(mbs_rules).items() if name.isupper() and isinstance(value, str)
              and value.startswith("MBS ")}
    cited |= {"rulebook 7", "rulebook 9.2", "rulebook 9.3", "rulebook 9.4"}  # written where decided
    missing = {rule for rule in cited if find_section(rule) is None}
    assert not missing
    assert sentences.rule_url("rulebook 9.3") == "/rules/#rulebook-9-3"
    assert sentences.rule_url("MBS Saque de banda y tiro de esquina") == "/rules/#mbs-saque-de-banda-e-tiro-de-esquina"
    assert sentences.rule_url("rulebook 99") is None
    assert rule_label("rulebook 9.3") == "Rulebook 9.3"
    assert rule_label("rulebook Duration of the Game") == "Rulebook: The Duration of the Game"
    assert rule_label("MBS Falta técnica") == "MBS: Falta Técnica"


@pytest.mark.django_db
def test_the_rules_page_shows_each_section_of_both_rulebooks():
    page = Client().get("/rules/").content.decode()
    for book in rulebooks():
        for section in book.sections:
            assert f'id="{section.anchor}"' in page
    assert "If the foul is in the offensive half, a direct shot on goal can (and should) be taken" in page
    assert "La falta ocurre cuando un botón de un jugador golpea" in page
    assert "Technical foul" in page  # the English name of "Falta Técnica"


@pytest.mark.django_db(transaction=True)
def test_the_feed_speaks_in_sentences_with_the_names_and_links_to_the_rules():
    fixture = make_league(2, slug="speak").fixtures.get()
    home, away = users_of(fixture)
    for user, last in ((home, "Rossi"), (away, "Costa")):
        user.player.last_name = last
        user.player.save()
    match = setup_match(fixture, timezone.now())
    online.check_in(match_id=match.pk, user=home)
    match = online.check_in(match_id=match.pk, user=away)
    # the kick-off's first touch must keep the ball in the centre circle: a hard flick is a foul
    answer = online.submit_action(match_id=match.pk, user=home, seq=1, action_json={
        "type": "flick", "piece": "1", "angle_deg": -40.9, "speed_mm_s": 2500})
    assert answer.status_code == 201
    feed = Client().get(f"/matches/{match.pk}/feed/?after=0").json()
    row = feed["actions"][0]
    assert row["text"] == "Rossi flicks button 1 at 2500 mm/s."
    fouls = [e for e in row["events"] if e["type"] == "technical_foul"]
    assert fouls and fouls[0]["text"] == ("Technical foul against Rossi: the first touch of a kick-off must "
                                          "move the ball forward and keep it inside the centre circle.")
    assert fouls[0]["rule_url"] == "/rules/#rulebook-7" and fouls[0]["rule_label"] == "Rulebook 7"
    for event in row["events"]:
        assert event["type"] == "touch" or (event["text"] and not BARE_KEY.search(event["text"])), event
    assert feed["match"]["may_not_play"] == {}  # Costa's indirect free kick: every button may take it


@pytest.mark.django_db(transaction=True)
def test_the_feed_says_which_buttons_may_not_play_and_why():
    fixture = make_league(2, slug="barred").fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, timezone.now())
    online.check_in(match_id=match.pk, user=home)
    online.check_in(match_id=match.pk, user=away)
    # a gentle first touch of the kick-off: button 1 may not take the second
    answer = online.submit_action(match_id=match.pk, user=home, seq=1, action_json={
        "type": "flick", "piece": "1", "angle_deg": -40.9, "speed_mm_s": 400})
    assert answer.status_code == 201 and answer.data["state"]["to_move"] == "home"
    barred = Client().get(f"/matches/{match.pk}/feed/?after=1").json()["match"]["may_not_play"]
    assert set(barred) == {"1"}
    assert barred["1"]["text"].startswith("Button 1 ") and barred["1"]["rule_url"].startswith("/rules/#rulebook-")
    refused = APIClient()
    refused.force_authenticate(home)
    body = refused.post(f"/api/matches/{match.pk}/actions/", {"seq": 2, "action": {
        "type": "flick", "piece": "1", "angle_deg": 0, "speed_mm_s": 900}}, format="json").json()
    assert body["text"] == "Not allowed. " + barred["1"]["text"]


@pytest.mark.django_db(transaction=True)
def test_a_refused_move_answers_with_a_sentence_and_the_rule_page(stub_referee):
    fixture = make_league(2, slug="refuse").fixtures.get()
    home, away = users_of(fixture)
    match = setup_match(fixture, timezone.now())
    online.check_in(match_id=match.pk, user=home)
    online.check_in(match_id=match.pk, user=away)
    client = APIClient()
    client.force_authenticate(home)
    body = client.post(f"/api/matches/{match.pk}/actions/", {"seq": 1, "action": {"type": "declare_shot"}},
                       format="json").json()
    assert body["text"].startswith("Not allowed. ") and body["text"].endswith(".")
    assert body["rule_url"] == "/rules/#rulebook-4" and body["rule_label"] == "Rulebook 4"


@pytest.mark.django_db(transaction=True)
def test_the_official_result_reaches_the_feed_as_a_sentence():
    from leagues.management.commands.play_fixtures import play_bot_match

    fixture = make_league(2, slug="offi").fixtures.get()
    match = play_bot_match(fixture=fixture)
    header = Client().get(f"/matches/{match.pk}/feed/?after={match.seq}").json()["match"]
    result = result_of(match)
    assert header["finished"] and header["official"]["home"] == result.home_goals
    assert header["official"]["text"] == (
        f"Official result: Test {result.home_goals}–{result.away_goals} Test.")
    names = Client().get(f"/matches/{match.pk}/").context["config"]["sides"]
    for row in Client().get(f"/matches/{match.pk}/replay.json").json()["actions"]:
        for event in row["events"]:
            assert event["type"] == "touch" or (event["text"] and not BARE_KEY.search(event["text"])), event
            if event["type"] != "touch":  # in the words of the referee's catalogue
                assert event["text"] == sentences.message_sentence(event["message"], names), event
            assert event.get("rule") is None or event["rule_url"], event


@pytest.mark.django_db(transaction=True)
def test_the_board_runs_without_inline_script():
    fixture = make_league(2, slug="csp").fixtures.get()
    match = setup_match(fixture, timezone.now(), computer_sides=["home", "away"])
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert scripts
    for attributes, body in scripts:
        assert 'type="application/json"' in attributes or ("src=" in attributes and not body.strip()), attributes
    assert not re.search(r"\son[a-z]+=", page)  # no inline event handler
    assert 'id="board-strings"' in page and 'id="board-config"' in page

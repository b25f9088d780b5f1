"""The forms of the table referees (COMPETITIONS.md §12).

- The organiser's settings form's fields: the referees by username (comma-separated, as the API's
  ``referees``) and which hall tables each records at (one line per referee, ``rui: 1, 3``; a
  referee left out records at every table). Saved untouched, they change nothing.
- ``RefereeResultForm``: a referee's result from a phone at the table."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from leagues.models import Outcome, Side
from leagues.rules.referee_tables import (
    referee_tables_clean,
    referee_tables_parse,
    referee_tables_text,
)


def _username(value) -> str:
    return value.get_username() if hasattr(value, "get_username") else str(value)


class UsernamesField(forms.CharField):
    """Users by username, comma-separated (``rui, ana``): cleans to the active users, in the order
    given; an unknown username is an error naming it."""

    def prepare_value(self, value):
        if isinstance(value, list | tuple):
            return ", ".join(_username(v) for v in value)
        return value

    def names(self, value) -> list[str]:
        text = self.prepare_value(value) or ""
        seen: list[str] = []
        for name in (n.strip() for n in text.replace(";", ",").replace("\n", ",").split(",")):
            if name and name not in seen:
                seen.append(name)
        return seen

    def clean(self, value):
        names = self.names(super().clean(value))
        users = {u.get_username(): u for u in get_user_model().objects.filter(username__in=names, is_active=True)}
        unknown = [n for n in names if n not in users]
        if unknown:
            raise forms.ValidationError(_("No active user is named %(names)s."), params={"names": ", ".join(unknown)})
        return [users[n] for n in names]

    def has_changed(self, initial, data) -> bool:
        return set(self.names(initial)) != set(self.names(data))


class RefereeTablesField(forms.CharField):
    """``referee_tables`` as text, one line per referee (``rui: 1, 3``)."""

    widget = forms.Textarea(attrs={"rows": 3})

    def prepare_value(self, value):
        return referee_tables_text(value) if isinstance(value, dict) else value

    def to_python(self, value):
        if isinstance(value, dict):
            return referee_tables_clean(value)
        try:
            return referee_tables_clean(referee_tables_parse(super().to_python(value)))
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def has_changed(self, initial, data) -> bool:
        try:
            return self.to_python(initial or {}) != self.to_python(data)
        except forms.ValidationError:
            return True


def side_name(fixture, side: str) -> str:
    """Who plays ``side`` of ``fixture`` as a referee reads it: a team game's player, else the
    entrant's player, else the entrant's name."""
    player = getattr(fixture, f"{side}_player", None) if fixture.is_game else None
    if player is not None:
        return player.full_name
    entrant = fixture.entrant(side)
    if entrant is None:
        return str(_("To be decided"))
    return entrant.player.full_name if entrant.player_id else entrant.name


def extra_time_shown(fixture) -> bool:
    """Whether the result of ``fixture`` may have extra time: a knockout fixture (not a team
    tie's game: the tie is decided) of a competition that plays it."""
    return fixture.is_knockout and not fixture.is_game and fixture.competition.extra_time


def shootout_shown(fixture) -> bool:
    """Whether the result of ``fixture`` may have a shoot-out (as ``extra_time_shown``)."""
    return fixture.is_knockout and not fixture.is_game and fixture.competition.shootout


def _score_input() -> forms.NumberInput:
    return forms.NumberInput(attrs={"inputmode": "numeric", "pattern": "[0-9]*", "min": 0, "max": 99,
                                    "class": "stepper-input"})


class RefereeResultForm(forms.Form):
    """A referee's result from the table, for a phone: played (the score; extra time and the
    shoot-out when the fixture may have them) or a walkover (which side did not show), and a
    note. ``key`` is made when the form is shown: sent twice, it is stored once
    (``leagues.services.result_requests``)."""

    outcome = forms.ChoiceField(label=_("How it ended"), initial=Outcome.PLAYED, widget=forms.RadioSelect,
                                choices=[(Outcome.PLAYED, _("Played")), (Outcome.WALKOVER, _("Walkover"))])
    walkover_side = forms.ChoiceField(label=_("Who did not show"), required=False, widget=forms.RadioSelect,
                                      choices=Side.choices)
    home_goals = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, widget=_score_input())
    away_goals = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, widget=_score_input())
    home_et_goals = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, widget=_score_input())
    away_et_goals = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, widget=_score_input())
    home_shootout = forms.IntegerField(min_value=0, max_value=99, required=False, widget=_score_input())
    away_shootout = forms.IntegerField(min_value=0, max_value=99, required=False, widget=_score_input())
    reason = forms.CharField(max_length=1000, required=False, label=_("Note (kept in the history)"),
                             widget=forms.TextInput)
    key = forms.CharField(max_length=100, widget=forms.HiddenInput)
    home_entrant = forms.IntegerField(required=False, widget=forms.HiddenInput)
    away_entrant = forms.IntegerField(required=False, widget=forms.HiddenInput)
    previous = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def __init__(self, *args, fixture, **kwargs):
        super().__init__(*args, **kwargs)
        self.fixture = fixture
        self.names = {side: side_name(fixture, side) for side in ("home", "away")}
        self.fields["walkover_side"].choices = [
            (Side.HOME, self.names["home"]), (Side.AWAY, self.names["away"]), (Side.BOTH, _("Both (neither came)"))]
        for side in ("home", "away"):
            for name in ("goals", "et_goals", "shootout"):
                self.fields[f"{side}_{name}"].label = self.names[side]
        self.extra_time = extra_time_shown(fixture)
        self.shootout = shootout_shown(fixture)
        if not self.extra_time:
            del self.fields["home_et_goals"], self.fields["away_et_goals"]
        if not self.shootout:
            del self.fields["home_shootout"], self.fields["away_shootout"]

    def recorded(self) -> dict:
        """The result as ``referee_result_record`` takes it (a valid form)."""
        data = self.cleaned_data
        walkover = data["outcome"] == Outcome.WALKOVER
        recorded = {
            "outcome": data["outcome"], "outcome_side": data.get("walkover_side") or "" if walkover else "",
            "home_goals": 0 if walkover else data["home_goals"], "away_goals": 0 if walkover else data["away_goals"],
            "home_et_goals": 0 if walkover else data.get("home_et_goals") or 0,
            "away_et_goals": 0 if walkover else data.get("away_et_goals") or 0,
            "home_shootout": None if walkover else data.get("home_shootout"),
            "away_shootout": None if walkover else data.get("away_shootout"),
            "reason": data.get("reason") or "",
        }
        expected = (data.get("home_entrant"), data.get("away_entrant"))
        recorded["expected_entrants"] = expected if expected != (None, None) else None
        recorded["expected_previous"] = data.get("previous") or "" if "previous" in self.data else None
        return recorded

    def clean(self):
        data = super().clean()
        if data.get("outcome") == Outcome.WALKOVER:
            if not data.get("walkover_side"):
                self.add_error("walkover_side", _("Say who did not show."))
        else:
            for name in ("home_goals", "away_goals"):
                if data.get(name) is None and name not in self.errors:
                    self.add_error(name, _("Give the goals on the table."))
        return data

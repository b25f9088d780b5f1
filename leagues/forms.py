"""Forms of the organiser pages. They check input; the views hand it to the services."""
from __future__ import annotations

import zoneinfo

from django import forms
from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from leagues import names
from leagues.form_fields import TimeZoneField, ZonedDateTimeField, ZonedTimesForm
from leagues.models import (
    FIXED_AFTER_DRAW,
    Club,
    Competition,
    Outcome,
    Player,
    Registration,
    Side,
    TiebreakPreset,
)
from leagues.referee_forms import RefereeTablesField, UsernamesField
from leagues.rules.best_thirds import settings_errors as best_thirds_errors
from leagues.rules.calls import table_names_error
from leagues.rules.referee_tables import referee_tables_errors
from leagues.rules.standings import validate_criteria
from leagues.services.calls import calls_beyond
from leagues.slugs import unique_slug

# the settings page's fieldsets, in order; every field of the form is in exactly one
COMPETITION_FIELDSETS = (
    (_("Competition"), ("name", "slug", "season", "format", "rule_set", "first_date", "days_between_rounds")),
    (_("When and where"), ("time_zone", "kickoff_time", "venue", "checkin_opens_minutes", "checkin_grace_minutes")),
    (_("Format"), ("double_round_robin", "third_place_match", "placement_matches", "grand_final_reset",
                   "group_count", "qualifiers_per_group", "best_thirds", "rounds", "bye_points")),
    (_("Match"), ("halves", "half_minutes", "extra_time", "extra_time_minutes", "shootout", "shootout_kicks")),
    (_("Points, tie-breaks and results"), ("points_win", "points_draw", "points_loss", "tiebreak_preset",
                                           "tiebreak_criteria", "walkover_goals_for", "walkover_goals_against",
                                           "withdrawal_policy")),
    (_("Ratings and the federation ranking"), ("rated", "ranking_tier")),
    (_("What the players do"), ("player_reports", "report_confirm_hours", "report_dispute_days",
                                "reschedule_by_players", "reschedule_latest_days", "overdue_days")),
    (_("Table referees"), ("referees", "referee_tables")),
    (_("The tournament day in a hall"), ("tables", "table_names", "min_rest_minutes", "auto_call")),
)
COMPETITION_FIELDS = [name for _legend, names_ in COMPETITION_FIELDSETS for name in names_]
# left empty, these keep the competition's value (a new one: the default)
KEEP_WHEN_EMPTY = ("kickoff_time", "time_zone", "venue", "checkin_opens_minutes", "checkin_grace_minutes",
                   "best_thirds", "bye_points", "report_confirm_hours", "report_dispute_days", "reschedule_latest_days",
                   "overdue_days", "tables", "min_rest_minutes")


class TableNamesField(forms.CharField):
    """A competition's ``table_names`` as a text of one name per line (trailing empty lines dropped)."""

    widget = forms.Textarea(attrs={"rows": 4})

    def prepare_value(self, value):
        return "\n".join(str(name) for name in value) if isinstance(value, list) else value

    def to_python(self, value):
        if isinstance(value, list):
            return value
        names = [line.strip() for line in (value or "").replace("\r\n", "\n").split("\n")]
        while names and not names[-1]:
            names.pop()
        return names

    def has_changed(self, initial, data):
        return self.to_python(initial or []) != self.to_python(data)


class CompetitionForm(forms.ModelForm):
    time_zone = TimeZoneField(
        label=_("Time zone"), required=False,
        help_text=_("Type to search the list (a city: Europe/Lisbon, America/Sao_Paulo); kick-offs, check-in and "
                    "registration are given and shown in it."))
    tiebreak_criteria = forms.CharField(
        required=False, help_text=_("Custom preset only: criterion keys after points, comma-separated."),
    )
    referees = UsernamesField(
        required=False, label=_("Referees"),
        help_text=_("Usernames, comma-separated: each records the results of the fixtures called to their hall "
                    "tables from a phone, and nothing else."))
    referee_tables = RefereeTablesField(
        required=False, label=_("Tables per referee"),
        help_text=_("One line per referee: username, a colon, table numbers (rui: 1, 3). A referee left out "
                    "records at every table."))
    table_names = TableNamesField(
        label=_("Table names"), required=False,
        help_text=_("Optional: one name per line, in table order (an empty line leaves that table unnamed)."))

    class Meta:
        model = Competition
        fields = COMPETITION_FIELDS
        widgets = {"first_date": forms.DateInput(attrs={"type": "date"}),
                   "kickoff_time": forms.TimeInput(attrs={"type": "time"}, format="%H:%M")}
        help_texts = {"slug": _("The address of the competition's page; leave empty to make one from the name.")}
        # the field's own terms, where the column's name would read "Kickoff time", "Checkin..."
        labels = {
            "kickoff_time": _("Kick-off time"), "checkin_opens_minutes": _("Check-in opens (minutes before)"),
            "checkin_grace_minutes": _("Check-in grace (minutes after)"), "shootout": _("Shoot-out"),
            "shootout_kicks": _("Shoot-out kicks"), "tiebreak_preset": _("Tie-break preset"),
            "tiebreak_criteria": _("Tie-break criteria"), "third_place_match": _("Third-place match"),
            "placement_matches": _("Placement matches"), "best_thirds": _("Best next-placed"),
            "grand_final_reset": _("Grand final reset"),
            "player_reports": _("Players report results"), "report_confirm_hours": _("Hours to confirm a report"),
            "report_dispute_days": _("Days to dispute a report made official by the clock"),
            "reschedule_by_players": _("Players move kick-offs by agreement"),
            "reschedule_latest_days": _("Latest move (days after the round's date)"),
            "overdue_days": _("Overdue after (days)"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["slug"].required = False
        for name in KEEP_WHEN_EMPTY:
            self.fields[name].required = False
        if not self.instance.pk and not self.is_bound:
            self.initial.setdefault("time_zone", settings.FEDERATION_TIME_ZONE)
        if self.instance.pk:
            self.initial["tiebreak_criteria"] = ", ".join(self.instance.tiebreak_criteria or [])
            if self.instance.fixtures.exists():
                for name in FIXED_AFTER_DRAW:
                    self.fields[name].disabled = True
                    self.fields[name].help_text = _("Fixed: the fixtures are drawn.")

    def fieldsets(self) -> list[tuple[str, list[forms.BoundField]]]:
        """``[(legend, [bound field, ...]), ...]`` as the settings page shows them: every field once."""
        return [(legend, [self[name] for name in field_names]) for legend, field_names in COMPETITION_FIELDSETS]

    def competition_fields(self) -> dict[str, object]:
        """A new competition's concrete fields as the valid form set them on its instance
        (``leagues.services.competitions.competition_create``)."""
        return {f.attname: getattr(self.instance, f.attname) for f in Competition._meta.concrete_fields if not f.primary_key}

    def changed_values(self) -> dict[str, object]:
        """The fields the organiser changed, with their new values (a valid form; ``referees``:
        the users)."""
        return {name: self.cleaned_data[name] if name == "referees" else getattr(self.instance, name)
                for name in self.changed_data}

    def _update_errors(self, errors):
        # the model's check of the match settings may blame a field this form does not show
        if hasattr(errors, "error_dict"):
            shown: dict = {}
            for field, errs in errors.error_dict.items():
                key = field if field in self.fields else NON_FIELD_ERRORS
                shown.setdefault(key, []).extend(errs)
            errors = ValidationError(shown)
        super()._update_errors(errors)

    def clean_slug(self):
        slug = self.cleaned_data.get("slug") or ""
        if slug:
            return slug
        return unique_slug(self.cleaned_data.get("name") or "", model=Competition, max_length=80,
                           fallback="competition", exclude_pk=self.instance.pk)

    @property
    def slug_given(self) -> bool:
        return bool((self.data.get("slug") or "").strip())

    def _clean_kept(self, name):
        value = self.cleaned_data.get(name)
        if value in (None, ""):
            return getattr(self.instance, name)
        return value

    def clean_kickoff_time(self):
        return self._clean_kept("kickoff_time")

    def clean_time_zone(self):
        return self._clean_kept("time_zone")

    def clean_venue(self):
        return self._clean_kept("venue")

    def clean_checkin_opens_minutes(self):
        return self._clean_kept("checkin_opens_minutes")

    def clean_checkin_grace_minutes(self):
        return self._clean_kept("checkin_grace_minutes")

    def clean_best_thirds(self):
        return self._clean_kept("best_thirds")

    def clean_bye_points(self):
        return self._clean_kept("bye_points")

    def clean_report_confirm_hours(self):
        return self._clean_kept("report_confirm_hours")

    def clean_report_dispute_days(self):
        return self._clean_kept("report_dispute_days")

    def clean_reschedule_latest_days(self):
        return self._clean_kept("reschedule_latest_days")

    def clean_overdue_days(self):
        return self._clean_kept("overdue_days")

    def clean_tables(self):
        return self._clean_kept("tables")

    def clean_min_rest_minutes(self):
        return self._clean_kept("min_rest_minutes")

    def clean_tiebreak_criteria(self):
        keys = [k.strip() for k in (self.cleaned_data.get("tiebreak_criteria") or "").split(",") if k.strip()]
        try:
            validate_criteria([k for k in keys if k != "points"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc
        return keys

    def clean_qualifiers_per_group(self):
        value = self.cleaned_data["qualifiers_per_group"]
        if value < 1:
            raise forms.ValidationError(_("At least one qualifier per group."))
        return value

    def clean_halves(self):
        value = self.cleaned_data["halves"]
        if value < 1:
            raise forms.ValidationError(_("At least one half."))
        return value

    def clean(self):
        data = super().clean()
        if "table_names" in data and data.get("tables") is not None:
            error = table_names_error(data["table_names"], data["tables"])
            if error:
                self.add_error("table_names", capfirst(error))
            elif self.instance.pk and calls_beyond(competition=self.instance, tables=data["tables"]):
                self.add_error("tables", _("Table %(table)s holds a call: withdraw it before the hall has fewer "
                                           "tables.") % {"table": calls_beyond(competition=self.instance,
                                                                               tables=data["tables"])[-1]})
        win, draw, loss = (data.get(k) for k in ("points_win", "points_draw", "points_loss"))
        if None not in (win, draw, loss) and not win >= draw >= loss:
            self.add_error("points_draw", _("Points must be win ≥ draw ≥ loss."))
        wo_for, wo_against = data.get("walkover_goals_for"), data.get("walkover_goals_against")
        if None not in (wo_for, wo_against) and wo_for <= wo_against:
            self.add_error("walkover_goals_for", _("A walkover needs a winner."))
        if data.get("tiebreak_preset") == TiebreakPreset.CUSTOM and not data.get("tiebreak_criteria"):
            self.add_error("tiebreak_criteria", _("The custom preset needs its criteria."))
        if data.get("format") == Competition.Format.SWISS \
                and data.get("withdrawal_policy") == Competition.WithdrawalPolicy.ANNUL:
            if "withdrawal_policy" in self.changed_data:  # chosen: said why not; left as shown: the Swiss's own
                self.add_error("withdrawal_policy", Competition.SWISS_KEEPS_RESULTS)
            else:
                data["withdrawal_policy"] = Competition.WithdrawalPolicy.FORFEIT_REMAINING
        if data.get("placement_matches") and data.get("format") == Competition.Format.LEAGUE:
            self.add_error("placement_matches", _("Placement matches are played after a knockout; a league's "
                                                  "standings decide its places."))
        settings = [data.get(k) for k in ("group_count", "qualifiers_per_group", "best_thirds")]
        if data.get("format") == Competition.Format.GROUPS_KNOCKOUT and None not in settings and settings[0] >= 1:
            error = best_thirds_errors(*settings)
            if error:
                self.add_error("best_thirds", error)
        if data.get("format") == Competition.Format.DOUBLE_ELIMINATION:
            for name in ("placement_matches", "third_place_match"):
                if data.get(name):
                    self.add_error(name, _("A double elimination places everyone by its losers' bracket; it "
                                           "has no third-place or placement matches."))
        if "referees" in data and "referee_tables" in data:
            error = referee_tables_errors(data["referee_tables"], referees={u.get_username() for u in data["referees"]},
                                          tables=data.get("tables", self.instance.tables) or 0)
            if error:
                self.add_error("referee_tables", capfirst(error))
        return data


class EntrantForm(forms.Form):
    player = forms.ModelChoiceField(
        queryset=Player.objects.order_by("last_name", "first_name"), required=False, label=_("Player"),
        help_text=_("A licensed player; or leave empty and give a name."),
    )
    name = forms.CharField(max_length=160, required=False, label=_("Name"),
                           help_text=_("Defaults to the player and club."))
    club = forms.ModelChoiceField(
        queryset=Club.objects.order_by("name"), required=False, label=_("Club"),
        help_text=_("Defaults to the player's club."),
    )
    seed = forms.IntegerField(min_value=1, max_value=512, required=False, label=_("Seed"),
                              help_text=_("1 is the top seed."))

    def __init__(self, *args, competition: Competition, **kwargs):
        super().__init__(*args, **kwargs)
        self.competition = competition
        self.fields["player"].queryset = Player.objects.exclude(
            entries__competition=competition
        ).order_by("last_name", "first_name")

    def clean(self):
        data = super().clean()
        if not data.get("player") and not data.get("name"):
            self.add_error("name", _("Give a name or choose a player."))
        entrants = self.competition.entrants
        if data.get("name") and entrants.filter(name=data["name"]).exists():
            self.add_error("name", _("Another entrant has this name."))
        if data.get("seed") and entrants.filter(seed=data["seed"]).exists():
            self.add_error("seed", _("Another entrant has this seed."))
        return data


class ResultForm(forms.Form):
    """A result from the table. A walkover needs only its side (``both``: a double no-show);
    the goals are for a played match or a disqualification (the score at that moment)."""

    outcome = forms.ChoiceField(label=_("How it ended"), initial="played",
                                choices=[c for c in Outcome.choices if c[0] != Outcome.BYE])
    outcome_side = forms.ChoiceField(
        choices=[("", "—"), *Side.choices], required=False, label=_("Side"),
        help_text=_("Walkover: who did not show (both: a double no-show). Disqualification: who was disqualified."),
    )
    home_goals = forms.IntegerField(min_value=0, max_value=99, required=False, label=_("Home goals"))
    away_goals = forms.IntegerField(min_value=0, max_value=99, required=False, label=_("Away goals"))
    home_et_goals = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, label=_("Home, extra time"))
    away_et_goals = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, label=_("Away, extra time"))
    home_shootout = forms.IntegerField(min_value=0, max_value=99, required=False, label=_("Home, shoot-out"))
    away_shootout = forms.IntegerField(min_value=0, max_value=99, required=False, label=_("Away, shoot-out"))
    home_discipline = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, label=_("Home, discipline"))
    away_discipline = forms.IntegerField(min_value=0, max_value=99, initial=0, required=False, label=_("Away, discipline"))
    reason = forms.CharField(max_length=1000, required=False, label=_("Reason (kept in the history)"),
                             widget=forms.TextInput)
    cascade = forms.BooleanField(
        required=False, widget=forms.HiddenInput,
        label=_("Also put the later fixtures it changes back to scheduled, with their new entrants"),
    )
    # the entrants the form was shown for: a result is refused when they have changed since
    home_entrant = forms.IntegerField(required=False, widget=forms.HiddenInput)
    away_entrant = forms.IntegerField(required=False, widget=forms.HiddenInput)
    # the result the form was opened on ("": none): refused when another was recorded since
    previous = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        expected = (data.pop("home_entrant", None), data.pop("away_entrant", None))
        data["expected_entrants"] = expected if expected != (None, None) else None
        previous = data.pop("previous", None)
        data["expected_previous"] = previous if "previous" in self.data else None
        for name in ("home_et_goals", "away_et_goals", "home_discipline", "away_discipline"):
            if data.get(name) is None and name not in self.errors:
                data[name] = 0
        if data.get("outcome") == Outcome.WALKOVER:
            data.update(home_goals=0, away_goals=0, home_et_goals=0, away_et_goals=0,
                        home_shootout=None, away_shootout=None)
        else:
            for name in ("home_goals", "away_goals"):
                if data.get(name) is None and name not in self.errors:
                    self.add_error(name, _("Give the goals on the table."))
            if data.get("outcome_side") == Side.BOTH:
                self.add_error("outcome_side", _("Both is only a walkover: a double no-show."))
        return data


class DecisionForm(forms.Form):
    """An organiser's decision on an online fixture: it overrides the match's log."""

    outcome = forms.ChoiceField(label=_("Decision"), choices=[(Outcome.WALKOVER, _("Walkover")),
                                                               (Outcome.DISQUALIFICATION, _("Disqualification"))])
    outcome_side = forms.ChoiceField(label=_("Against"), choices=Side.choices)
    reason = forms.CharField(max_length=1000, label=_("Reason"), help_text=_("Shown on the fixture's page."))
    cascade = forms.BooleanField(required=False, widget=forms.HiddenInput)
    # the entrants the form was shown for: a decision is refused when they have changed since
    home_entrant = forms.IntegerField(required=False, widget=forms.HiddenInput)
    away_entrant = forms.IntegerField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, fixture=None, **kwargs):
        super().__init__(*args, **kwargs)
        if fixture is not None and fixture.home_id and fixture.away_id:  # "Home (Ana Ferreira)": no guessing
            self.fields["outcome_side"].choices = [
                (Side.HOME, _("Home (%(entrant)s)") % {"entrant": fixture.home.name}),
                (Side.AWAY, _("Away (%(entrant)s)") % {"entrant": fixture.away.name}),
                (Side.BOTH, _("Both (a double no-show)")),
            ]
            self.initial.update(home_entrant=fixture.home_id, away_entrant=fixture.away_id)

    def clean(self):
        data = super().clean()
        expected = (data.pop("home_entrant", None), data.pop("away_entrant", None))
        data["expected_entrants"] = expected if expected != (None, None) else None
        if data.get("outcome") == Outcome.DISQUALIFICATION and data.get("outcome_side") == Side.BOTH:
            self.add_error("outcome_side", _("A disqualification is of one side."))
        return data


class WithdrawForm(forms.Form):
    """The confirmation of a withdrawal (the competition's policy applies)."""

    reason = forms.CharField(max_length=1000, required=False, label=_("Reason (kept in the history)"),
                             help_text=_("Empty: “%(entrant)s withdrew.”"))

    def __init__(self, *args, entrant, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reason"].help_text = self.fields["reason"].help_text % {"entrant": entrant.name}


class AnnulMatchForm(forms.Form):
    reason = forms.CharField(max_length=1000, label=_("Reason"),
                             help_text=_("The match is annulled, to be replayed; its result, if any, is struck."))
    cascade = forms.BooleanField(required=False, widget=forms.HiddenInput)


class PlayerReportForm(forms.Form):
    """A player's report of a played table fixture: the score (a walkover or more is the organisers')."""

    home_goals = forms.IntegerField(min_value=0, max_value=99, label=_("Home goals"))
    away_goals = forms.IntegerField(min_value=0, max_value=99, label=_("Away goals"))


class RescheduleForm(ZonedTimesForm, forms.Form):
    """A new kick-off, given and shown in the competition's time zone (``initial["kickoff"]``:
    the fixture's, aware)."""

    reason = forms.CharField(max_length=1000, required=False, label=_("Reason"))

    def __init__(self, *args, zone: zoneinfo.ZoneInfo, **kwargs):
        super().__init__(*args, **kwargs)
        self.zone = zone
        self.fields["kickoff"] = ZonedDateTimeField(zone=zone, label=_("Kick-off"))
        self.order_fields(["kickoff", "reason"])

    def clean(self):
        return self.keep_untouched_times(super().clean())


class RoundRescheduleForm(RescheduleForm):
    """A round's new kick-off: every fixture of it still to be played moves there."""

    round = forms.ModelChoiceField(queryset=None, label=_("Round"))

    def __init__(self, *args, rounds, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["round"].queryset = rounds
        self.fields["round"].label_from_instance = names.shown  # "Round 5" in the reader's language
        self.order_fields(["round", "kickoff", "reason"])


class RegistrationForm(ZonedTimesForm, forms.ModelForm):
    """A competition's registration: its opening and closing times given and shown in the
    competition's time zone."""

    class Meta:
        model = Registration
        fields = ["opens_at", "closes_at", "capacity", "licence_required", "waiting_list"]

    def __init__(self, *args, zone: zoneinfo.ZoneInfo, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("opens_at", "closes_at"):
            model_field = self.fields[name]
            self.fields[name] = ZonedDateTimeField(zone=zone, label=model_field.label)

    def clean(self):
        return self.keep_untouched_times(super().clean())

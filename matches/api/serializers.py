"""The bodies of the online-play API (``matches.api.views``), for the schema and for reading
requests: what ``matches.services.online`` answers, field by field.

The answers themselves are built by the services (``match_public``, ``submit_action``'s
``Answer``); these serializers say their shape in ``/api/schema/``. Times are ISO 8601 with
their offset; ``state`` is the table's state as SIMULATION_CONTRACT.md §4 gives it.
"""
from __future__ import annotations

from rest_framework import serializers

from config.api_schema import RefusalSerializer
from matches.models import Match

SIDES = [("home", "home"), ("away", "away")]


class CheckedInSerializer(serializers.Serializer):
    home = serializers.BooleanField()
    away = serializers.BooleanField()


class MatchSerializer(serializers.Serializer):
    """What everybody may see of a match (``matches.services.online.match_public``)."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Match.Kind.choices)
    status = serializers.ChoiceField(choices=Match.Status.choices)
    rule_set = serializers.ChoiceField(choices=Match.RuleSet.choices)
    rule_params = serializers.DictField(help_text="The rule set's parameters the match is played under.")
    title = serializers.CharField(allow_blank=True)
    scheduled_at = serializers.DateTimeField(allow_null=True, help_text="The kick-off.")
    checkin_opens_at = serializers.DateTimeField(allow_null=True)
    checkin_deadline_at = serializers.DateTimeField(allow_null=True)
    checked_in = CheckedInSerializer()
    computer_sides = serializers.ListField(child=serializers.ChoiceField(choices=SIDES))
    your_side = serializers.ChoiceField(choices=SIDES, allow_null=True,
                                        help_text="The side the requester plays; null for a spectator.")
    seq = serializers.IntegerField(min_value=0, help_text="Rows in the log: the next action is seq + 1.")
    state = serializers.DictField(allow_null=True, help_text="The table's state; null before the kick-off.")
    state_hash = serializers.CharField(allow_blank=True)
    to_move = serializers.ChoiceField(choices=SIDES, allow_null=True)
    deadline_at = serializers.DateTimeField(allow_null=True, help_text="The next deadline, if any.")
    deadline_kind = serializers.CharField(allow_blank=True, help_text='e.g. "turn", "checkin"; "" for none.')
    walkover_side = serializers.CharField(allow_blank=True, help_text='"home", "away", "both", or "".')


class ActionSerializer(serializers.Serializer):
    """One action (SIMULATION_CONTRACT.md §4). ``type`` says which fields it needs: a flick
    ``piece``, ``angle_deg`` and ``speed_mm_s``; a placement ``piece`` (a place) and ``at``;
    ``declare_shot`` and ``ready`` nothing more. ``side`` defaults to the requester's; ``t`` is
    the server's."""

    type = serializers.ChoiceField(choices=[(t, t) for t in ("flick", "declare_shot", "place_goalkeeper",
                                                              "place", "ready")])
    side = serializers.ChoiceField(choices=SIDES, required=False)
    piece = serializers.CharField(required=False, help_text="'1'..'10', 'gk' (or 'ball' for a place).")
    angle_deg = serializers.FloatField(required=False, help_text="Degrees, 0 = +x, counter-clockwise.")
    speed_mm_s = serializers.FloatField(required=False, help_text="More than 0, at most the rule set's limit.")
    at = serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2, required=False,
                               help_text="[x, y] in mm.")


class SubmitSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The log's next sequence number (the match's seq + 1).")
    action = ActionSerializer()


class LoggedActionSerializer(serializers.Serializer):
    seq = serializers.IntegerField(min_value=1)
    side = serializers.ChoiceField(choices=SIDES, allow_null=True, help_text="null for a deadline (a tick).")
    action = serializers.DictField(help_text="The action as applied, with the server's clock time t.")
    at = serializers.DateTimeField(help_text="When the server accepted it.")
    state_hash = serializers.CharField()
    events = serializers.ListField(child=serializers.DictField())
    frames = serializers.ListField(help_text="One list of frames per flick.")


class ActionLogSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seq = serializers.IntegerField(min_value=0)
    status = serializers.ChoiceField(choices=Match.Status.choices)
    actions = LoggedActionSerializer(many=True)


class AcceptedSerializer(serializers.Serializer):
    """201: the action (and the computer's replies) applied."""

    seq = serializers.IntegerField(min_value=1)
    accepted = serializers.ListField(child=serializers.IntegerField(), help_text="The seq of each row added.")
    status = serializers.ChoiceField(choices=Match.Status.choices)
    state = serializers.DictField(allow_null=True)
    state_hash = serializers.CharField(allow_blank=True)
    events = serializers.ListField(child=serializers.DictField())
    deadline_at = serializers.DateTimeField(allow_null=True)
    deadline_kind = serializers.CharField(allow_blank=True)


class PlayRefusalSerializer(RefusalSerializer):
    """A refused submission. 409 and 422 carry the match as it stands (``seq``, ``status``,
    ``state``); a refusal of the referee (``"rule_violation"``) its ``reason``, ``rule``, the
    referee's ``message`` (``{"key", "params"}``) and the site's words for it."""

    seq = serializers.IntegerField(required=False)
    status = serializers.ChoiceField(choices=Match.Status.choices, required=False)
    state = serializers.DictField(required=False, allow_null=True)
    reason = serializers.CharField(required=False)
    rule = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    message = serializers.DictField(required=False, allow_null=True)
    text = serializers.CharField(required=False, help_text="The refusal in a sentence for people.")
    rule_url = serializers.CharField(required=False, allow_null=True, allow_blank=True)
    rule_label = serializers.CharField(required=False, allow_null=True, allow_blank=True)


class PracticeSerializer(serializers.Serializer):
    rule_set = serializers.ChoiceField(choices=Match.RuleSet.choices, default=Match.RuleSet.ONE_TOUCH)
    side = serializers.ChoiceField(choices=SIDES, default="home", help_text="The side the requester plays.")
    rule_params = serializers.DictField(required=False, help_text="Parameters over the rule set's defaults.")

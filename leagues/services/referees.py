"""A table referee's result (COMPETITIONS.md §12): official, as an organiser's, through the same
checks and the same history (``leagues.services.results.result_record``), for a fixture called
to one of the referee's hall tables.

A referee records a result and corrects a result they recorded themselves; a result recorded by
someone else (an organiser, another referee, a file) is not theirs to change, and a correction
that would cascade down a bracket is the organisers' (``PermissionError``, a 403). Who may
record at which table is ``leagues.permissions.referee_refusal``; it is checked again here under
the fixture's lock, with the result in place at that moment. The history entry keeps
``{"role": "referee", "table": N}`` in its ``after`` ("recorded by referee Rui Costa at table 3").
"""
from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from leagues.models import Result
from leagues.permissions import referee_refusal, referee_table
from leagues.services.locks import retry_conflicts
from leagues.services.results import ResultConflict, current_result, lock_fixture, result_record

ROLE = "referee"


def recorder_name(user) -> str:
    """How a recorder is named in the history: their full name, else their username."""
    return (user.get_full_name() or "").strip() or user.get_username()


@retry_conflicts
def referee_result_record(*, fixture, referee, cascade: bool = False, **recorded) -> Result:
    """Records (or corrects) the result of ``fixture`` as ``referee`` at its hall table;
    ``recorded``: ``result_record``'s result fields (goals, outcome, extra time, shoot-out,
    discipline, ``reason``, ``expected_entrants``, ``expected_previous``).

    Raises ``PermissionError`` (403, the reason in the reader's language) for a user who may not
    referee this fixture, a result recorded by someone else, or ``cascade``; and whatever
    ``result_record`` raises (``ResultError`` 400, ``ResultConflict`` 409). Nothing is saved then."""
    if cascade:
        raise PermissionError(_("only the organisers may make a correction cascade down the bracket; ask them"))
    with transaction.atomic():
        _competition, fixture = lock_fixture(fixture.pk)
        refusal = referee_refusal(referee, fixture)
        if refusal is not None:
            raise PermissionError(refusal)
        previous = current_result(fixture)
        if previous is not None and previous.recorded_by_id != referee.pk:
            by = previous.recorded_by
            raise PermissionError(
                _("this result was recorded by %(name)s: a referee corrects only the results they recorded; "
                  "ask the organisers") % {"name": recorder_name(by)} if by is not None else
                _("this result was not recorded by you: a referee corrects only the results they recorded; "
                  "ask the organisers"))
        try:
            return result_record(fixture=fixture, recorded_by=referee, cascade=False,
                                 recorded_as={"role": ROLE, "table": referee_table(referee, fixture)}, **recorded)
        except ResultConflict as exc:
            if exc.code != "played_on":
                raise
            raise ResultConflict("played_on", _(
                "this changes who plays in a later fixture that already has a result or a match under way; "
                "only the organisers may make such a correction: ask them"), **exc.extra) from exc

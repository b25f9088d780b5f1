"""Creating and changing a competition: its slug is unique, and a slug made from the name never
fails; a change of the check-in settings moves the check-in windows already set up.

Two competitions may share a name; their slugs (the address of their pages) differ. A slug the
organiser gave that is taken is refused (``SlugTaken``, a 400 naming ``slug``); a slug made from
the name (``leagues.slugs``) that another request took at the same moment is replaced by the next
free one, then by one with a random suffix, and the creation is tried again: the database's
unique constraint is the judge, not a check that races.
"""
from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from leagues.models import Competition
from leagues.services.calls import HALL_SETTINGS, hall_settings_changed
from leagues.services.online import CHECKIN_SETTINGS, checkin_windows_follow
from leagues.slugs import slug_from, unique_slug

ATTEMPTS = 12
SLUG_MAX = Competition._meta.get_field("slug").max_length


class SlugTaken(ValueError):
    """The slug asked for belongs to another competition (a user can fix it: a 400 on ``slug``)."""

    field = "slug"

    def __init__(self):
        super().__init__(_("a competition with this slug exists already"))


def next_slug(name: str, *, random_suffix: bool = False) -> str:
    """The first free slug made from ``name`` (``name``, ``name-2``...); with ``random_suffix``,
    the slug of ``name`` and six random hex digits (for a crowd of requests at once)."""
    if random_suffix:
        return f"{slug_from(name, max_length=SLUG_MAX - 8, fallback='competition')}-{secrets.token_hex(3)}"
    return unique_slug(name, model=Competition, max_length=SLUG_MAX, fallback="competition")


def competition_create(*, fields: Mapping[str, object], auto_slug: bool, organiser=None,
                       organisers: Iterable = (), referees: Iterable = ()) -> Competition:
    """Saves a new competition of ``fields`` (its concrete fields by name or attname, ``slug``
    and ``name`` among them) in a transaction, with ``organisers`` and ``organiser`` (its
    creator) as its organisers and ``referees`` as its table referees. When the slug is taken meanwhile: ``SlugTaken`` if the
    organiser gave it (``auto_slug`` False), otherwise another free slug made from the name
    and a new try. A violation of another constraint is raised as it is (``IntegrityError``)."""
    slug, name = fields["slug"], fields.get("name", "")
    organisers, referees = list(organisers), list(referees)
    for attempt in range(ATTEMPTS):
        try:
            with transaction.atomic():
                competition = Competition.objects.create(**{**fields, "slug": slug})
                if organisers:
                    competition.organisers.add(*organisers)
                if organiser is not None:
                    competition.organisers.add(organiser)
                if referees:
                    competition.referees.add(*referees)
            return competition
        except IntegrityError:
            if not Competition.objects.filter(slug=slug).exists():
                raise
            if not auto_slug:
                raise SlugTaken() from None
            slug = next_slug(name, random_suffix=attempt >= 2)
    raise SlugTaken()


def competition_update(*, competition: Competition, data: Mapping[str, object], by=None) -> Competition:
    """Sets the fields of ``data`` (by name; ``organisers``, ``referees``: the whole list) on ``competition``
    and saves it, then, in the same transaction, moves the check-in windows of its matches set
    up when a check-in setting is among them (``leagues.services.online``), and wakes the hall
screens and the auto-caller when a hall setting is (``leagues.services.calls``). ``by`` (who
    changed it) is not stored yet: a competition keeps no history of its settings. A violation of a constraint is raised as it is (``IntegrityError``): nothing
    is saved."""
    data = dict(data)
    organisers = data.pop("organisers", None)
    referees = data.pop("referees", None)
    with transaction.atomic():
        for name, value in data.items():
            setattr(competition, name, value)
        competition.save()
        if organisers is not None:
            competition.organisers.set(organisers)
        if referees is not None:
            competition.referees.set(referees)
        if CHECKIN_SETTINGS & set(data):
            checkin_windows_follow(competition=competition)
        if HALL_SETTINGS & set(data):
            hall_settings_changed(competition=competition)
    return competition

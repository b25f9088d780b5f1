"""The status machine of a fixture and of a match: a table of allowed changes, and the one
method that moves a row along it, recording who and when (STYLE.md 7)."""
from __future__ import annotations

from datetime import datetime

from django.utils import timezone


class InvalidTransition(ValueError):
    """A status change the transition table does not allow (a bug or a stale request)."""


class StatusMachine:
    """Mixed into a model with ``status``, ``status_changed_at`` and ``status_changed_by``
    fields and a ``TRANSITIONS`` table (status -> the statuses it may move to)."""

    TRANSITIONS: dict[str, frozenset[str]] = {}

    def can_transition(self, new: str) -> bool:
        return new in self.TRANSITIONS[self.status]

    def set_status(self, new: str, *, by=None, now: datetime | None = None, save: bool = True) -> None:
        """Moves the row to ``new`` (saved unless ``save`` is False); raises
        ``InvalidTransition`` where the table forbids it. Callers hold the row's lock
        (``select_for_update``)."""
        if not self.can_transition(new):
            raise InvalidTransition(f"{self._meta.model_name} {self.pk}: {self.status} -> {new} is not allowed")
        self.status = new
        self.status_changed_at = now or timezone.now()
        self.status_changed_by = by
        if save:
            self.save(update_fields=["status", "status_changed_at", "status_changed_by"])

"""The pure competition core's only door to Django: the translation of the sentences it
writes. Everything else in ``leagues.rules`` is plain Python."""
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext, pgettext

__all__ = ["gettext", "gettext_lazy", "gettext_noop", "ngettext", "pgettext"]

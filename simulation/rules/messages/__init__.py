"""What the referees say, in words: one catalogue of sentences per referee, ready to translate.

Every referee event (``RuleEvent.message``) and every refusal (``RuleViolation.key`` and
``params``) carries a message ``{"key", "params"}``. The key is ``"<rule set>.<what>"``
(``"one_touch.technical_foul.triangle"``); the params are sides (``"home"``/``"away"``), piece
ids, rule sections (``rule``) and numbers, never a player's name: the referee knows sides, not
names. ``CATALOGUES[rule set][key]`` is the English template; ``{player}`` in it stands for the
name of the player of ``params["side"]``, which the site fills in (``render(..., names=...)``),
every other placeholder for a parameter. The templates are marked with a local ``gettext_noop``
so that Django's ``makemessages`` extracts them; the site translates the template, then fills it.

A catalogue is the shared sentences of ``common`` under the rule set's prefix, overlaid by the
rule set's own (``one_touch``, ``mbs``).
"""
from __future__ import annotations

import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from . import common, mbs, one_touch


def _catalogue(name: str, own: Mapping[str, str]) -> Mapping[str, str]:
    merged = {f"{name}.{key}": text for key, text in common.MESSAGES.items()}
    merged.update({f"{name}.{key}": text for key, text in own.items()})
    return MappingProxyType(merged)


#: rule set -> {message key: English template}
CATALOGUES: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "one_touch": _catalogue("one_touch", one_touch.MESSAGES),
    "mbs": _catalogue("mbs", mbs.MESSAGES),
})


def template(key: str) -> str:
    """The English template of ``key``; raises ``KeyError`` for a key no catalogue has."""
    rules = key.split(".", 1)[0]
    return CATALOGUES[rules][key]


def placeholders(text: str) -> set[str]:
    """The names of the placeholders of a template (``{piece}``, ``{speed:g}`` -> ``speed``)."""
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(text) if field}


def render(key: str, params: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """The English sentence of a message: ``{player}`` is ``names[params["side"]]`` (or the
    side itself when no name is given). Raises ``KeyError`` for an unknown key or a missing
    parameter."""
    side = params.get("side")
    values = dict(params)
    values["player"] = (names or {}).get(side, side) if side else ""
    return template(key).format(**values)


__all__ = ["CATALOGUES", "placeholders", "render", "template"]

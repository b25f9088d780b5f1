"""Finds the words of a template that no translation tag holds: the text between tags and the
attributes a person reads (``title``, ``aria-label``, ``placeholder``, ``alt``, ``data-empty``,
``content`` of a meta description, ``value`` of a button), outside ``{% translate %}`` and
``{% blocktranslate %}``...``{% endblocktranslate %}``.

``unmarked(source)`` -> ``[(line, text)]``. A text made only of template variables, numbers,
punctuation, symbols, or the proper names in ``PROPER`` is not a string to translate.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

PROPER = {"Botonera", "API", "CSV", "XLSX", "iCal", "Glicko-2", "MBS", "Swagger", "ReDoc"}
READ_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "data-empty", "content", "label"}

_BLOCK = re.compile(r"{%\s*blocktrans(?:late)?\b.*?%}.*?{%\s*endblocktrans(?:late)?\s*%}", re.S)
_TRANS = re.compile(r"{%\s*trans(?:late)?\s+(?:\"[^\"]*\"|'[^']*'|\S+)[^%]*%}", re.S)
_COMMENT = re.compile(r"{#.*?#}|{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S)
_TAG = re.compile(r"{%.*?%}", re.S)
_VAR = re.compile(r"{{.*?}}", re.S)
_WORD = re.compile(r"[^\W\d_]{2,}")


def _blank(match: re.Match) -> str:
    """The match replaced by a neutral token, keeping its newlines (line numbers hold)."""
    return "\x01" + "\n" * match.group(0).count("\n")


def _is_text(text: str) -> bool:
    words = [w for w in _WORD.findall(text.replace("\x01", " ")) if w not in PROPER]
    return bool(words)


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "textarea", "code", "pre"):  # code shown as it is
            self._skip += 1
        attributes = dict(attrs)
        for name, value in attrs:
            if value is None:
                continue
            if name == "content" and attributes.get("name") != "description":
                continue
            if name == "value" and not (tag == "input" and attributes.get("type") in ("submit", "button")):
                continue
            if name in READ_ATTRIBUTES or name == "value":
                if _is_text(value):
                    self.found.append((self.getpos()[0], f"{name}={value.strip()}"))

    def handle_endtag(self, tag):
        if tag in ("script", "style", "textarea", "code", "pre") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and _is_text(data):
            self.found.append((self.getpos()[0], " ".join(data.split())))


def unmarked(source: str) -> list[tuple[int, str]]:
    """The (line, text) of each text of ``source`` that no translation tag holds."""
    text = _COMMENT.sub(_blank, source)
    text = _BLOCK.sub(_blank, text)
    text = _TRANS.sub(_blank, text)
    text = _TAG.sub(_blank, text)
    text = _VAR.sub(_blank, text)
    collector = _Collector()
    collector.feed(text)
    collector.close()
    return collector.found

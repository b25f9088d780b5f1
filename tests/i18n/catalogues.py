"""The site's translation catalogues, as the completeness tests read them.

``LANGUAGES``: the codes of ``settings.LANGUAGES`` other than English, with their catalogue's
directory (``pt-br`` -> ``locale/pt_BR``). ``entries(code)``: the catalogue's polib entries
(the header and obsolete entries left out). ``english_patterns()``: each English msgid as a
regular expression that matches it rendered (its placeholders, ``%(name)s``, ``{name}``, ``%s``,
match any text), with the msgid; ``TextFinder``: the visible texts of an HTML page.
"""
from __future__ import annotations

import re
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import polib
from django.conf import settings
from django.utils.translation import to_locale

ROOT = Path(__file__).resolve().parent.parent.parent
LOCALE = ROOT / "locale"
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != "en"]
DOMAINS = ("django",)


def po_path(code: str, domain: str = "django") -> Path:
    return LOCALE / to_locale(code) / "LC_MESSAGES" / f"{domain}.po"


@cache
def entries(code: str, domain: str = "django") -> tuple[polib.POEntry, ...]:
    catalogue = polib.pofile(str(po_path(code, domain)), wrapwidth=0)
    return tuple(e for e in catalogue if not e.obsolete and e.msgid)


def untranslated(code: str, domain: str = "django") -> list[str]:
    """The msgids of ``code``'s catalogue with an empty or fuzzy translation."""
    missing = []
    for e in entries(code, domain):
        forms = e.msgstr_plural.values() if e.msgid_plural else [e.msgstr]
        if "fuzzy" in e.flags or not all(form.strip() for form in forms):
            missing.append(e.msgid if not e.msgctxt else f"{e.msgctxt}|{e.msgid}")
    return missing


_PLACEHOLDER = re.compile(r"%\([a-z_0-9]+\)[sdrgf]|%[sdrgf]|\{[a-z_0-9]+(?::[^}]*)?\}")
_WORD = re.compile(r"[^\W\d_]{2,}")


def _as_text(msgid: str) -> str:
    """A msgid as the page shows it: its markup and entities out, its spaces collapsed."""
    finder = TextFinder()
    finder.feed(msgid)
    return " ".join(" ".join(finder.texts).split())


@cache
def english_patterns() -> tuple[tuple[re.Pattern, str], ...]:
    """(pattern, msgid) for each English msgid of two words or more outside its placeholders
    (a single word, "Play", "Live", may be the same in another language)."""
    patterns = []
    for e in entries(LANGUAGES[0]):
        for msgid in (e.msgid, e.msgid_plural):
            if not msgid:
                continue
            text = _as_text(msgid)
            literal = _PLACEHOLDER.sub(" ", text)
            if len(_WORD.findall(literal)) < 2:
                continue
            pieces = [re.escape(" ".join(p.split())) for p in _PLACEHOLDER.split(text)]
            body = r"\s*.+?\s*".join(pieces)
            patterns.append((re.compile(r"^\s*" + body + r"\s*$", re.S), e.msgid))
    return tuple(patterns)


class TextFinder(HTMLParser):
    """The visible texts of a page (each text node, and the attributes a person reads)."""

    READ = {"title", "aria-label", "placeholder", "alt", "data-empty"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self._hidden = 0
        self.json_scripts: list[str] = []
        self._in_json = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag in ("script", "style", "template"):
            self._hidden += 1
            self._in_json = attributes.get("type") == "application/json"
        for name, value in attrs:
            if value and (name in self.READ or (tag == "meta" and attributes.get("name") == "description"
                                                and name == "content")):
                self.texts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self._hidden:
            self._hidden -= 1
            self._in_json = False

    def handle_data(self, data):
        if self._in_json:
            self.json_scripts.append(data)
        elif not self._hidden and data.strip():
            self.texts.append(" ".join(data.split()))

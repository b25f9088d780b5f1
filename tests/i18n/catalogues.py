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


def _fragments(msgid: str) -> list[str]:
    """A msgid as the page shows it: the whole, and each text between its tags (a msgid with
    markup, "Press <b>Ready</b>", is several texts on the page)."""
    finder = TextFinder()
    finder.feed("<html lang='en'><body>" + msgid)
    parts = [" ".join(t.split()) for t in finder.texts]
    whole = " ".join(" ".join(parts).split())
    return [whole, *[p for p in parts if p != whole]]


def _literal(raw: str) -> str:
    """A msgid's text between two placeholders as a pattern: a word at its edge is matched whole
    unless a placeholder is glued to it ("to" is not the start of "toque", nor "in" the end of
    "manualmente", nor the "in" of "check-in": a hyphen joins words)."""
    piece = " ".join(raw.replace("%%", "%").split())
    start = r"(?<![\w-])" if piece[:1].isalnum() and raw[:1] != piece[:1] else ""
    end = r"(?![\w-])" if piece[-1:].isalnum() and raw[-1:] != piece[-1:] else ""
    return start + re.escape(piece) + end


@cache
def english_patterns() -> tuple[tuple[re.Pattern, str], ...]:
    """(pattern, msgid) for each English msgid with a word outside its placeholders, and for
    each text between the tags of a msgid with markup; a placeholder matches any text."""
    patterns = []
    for e in entries(LANGUAGES[0]):
        for msgid in (e.msgid, e.msgid_plural):
            if not msgid:
                continue
            for text in _fragments(msgid):
                literal = _PLACEHOLDER.sub(" ", text)
                if not _WORD.findall(literal):
                    continue
                parts = re.split(f"({_PLACEHOLDER.pattern})", text)
                body = _literal(parts[0])
                for placeholder, piece in zip(parts[1::2], parts[2::2], strict=True):
                    # a number's placeholder (%(number)d) is a number on the page, any other any text
                    gap = r"\s*\d+\s*" if placeholder.endswith("d") else r"\s*.+?\s*"
                    body += gap + _literal(piece)
                patterns.append((re.compile(r"^\s*" + body + r"\s*$", re.S), e.msgid))
    return tuple(patterns)


# not read as text: scripts, styles, and code shown as it is (a snippet to copy)
HIDDEN = {"script", "style", "template", "textarea", "code", "pre"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class TextFinder(HTMLParser):
    """The visible texts of a page in the page's language (each text node, and the attributes a
    person reads). A part in another language (``lang``: a rulebook quoted as its federation
    publishes it) is left out; ``json_scripts`` are the data of the page's JSON scripts."""

    READ = {"title", "aria-label", "placeholder", "alt", "data-empty"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self._hidden = 0
        self.json_scripts: list[str] = []
        self._in_json = False
        self._open: dict[str, int] = {}
        self._langs: list[tuple[str, int, str]] = []  # (tag, its depth, lang) of elements with a lang

    def _foreign(self) -> bool:
        return len(self._langs) > 1 and self._langs[-1][2] != self._langs[0][2]

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag not in VOID:
            self._open[tag] = self._open.get(tag, 0) + 1
            if attributes.get("lang"):
                self._langs.append((tag, self._open[tag], attributes["lang"].lower()))
        if tag in HIDDEN:
            self._hidden += 1
            self._in_json = attributes.get("type") == "application/json"
        if self._foreign():
            return
        for name, value in attrs:
            if value and (name in self.READ or (tag == "meta" and attributes.get("name") == "description"
                                                and name == "content")):
                self.texts.append(value)

    def handle_endtag(self, tag):
        if tag in HIDDEN and self._hidden:
            self._hidden -= 1
            self._in_json = False
        if tag in VOID or not self._open.get(tag):
            return
        if self._langs and self._langs[-1][0] == tag and self._langs[-1][1] == self._open[tag]:
            self._langs.pop()
        self._open[tag] -= 1

    def handle_data(self, data):
        if self._in_json:
            self.json_scripts.append(data)
        elif not self._hidden and data.strip() and not self._foreign():
            self.texts.append(" ".join(data.split()))

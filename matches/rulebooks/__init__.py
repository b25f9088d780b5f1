"""The two rulebooks the referees apply, by section, for the ``/rules/`` page and the referee's
links (a call's ``rule`` such as ``"rulebook 9.3"`` or ``"MBS Falta"`` points at its section).

The texts are the federation's, kept beside this module as they were given:
``button-soccer-rulebook.en.txt`` (the one-touch rules) and ``mbs-online-rules.es.txt`` (the
MBS online rules, in Spanish). They are plain text: a heading is a line of its own, numbered
(``"9.3)"``, ``"1a) Pieces"``) or short and without a full stop (``"Aim of the Game"``,
``"Falta Técnica"``); the lines after it, up to the next heading, are its text, and lines
starting with ``"- "`` are a list. In the rulebook, a paragraph starting ``"Special:"`` is the
section ``"9 Special"`` the referee cites. A heading with no text of its own is kept only
when numbered sections follow it (``"Board and Pieces"``); the documents' title lines go.

- ``rulebooks()``: both books, parsed once;
- ``find_section(rule)``: the book and section a ``rule`` string cites, or ``None``;
- ``rule_anchor(rule)``: the section's anchor on the ``/rules/`` page (``"rulebook-9-3"``);
- ``rule_label(rule)``: how the board names it (``"Rulebook 9.3"``, ``"Rulebook: The Duration
  of the Game"``, ``"MBS: Falta"``).
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

HERE = Path(__file__).resolve().parent
NUMBERED = re.compile(r"^(\d+[a-z]?(?:\.\d+)?)\)\s*(.*)$")
SUBSECTION = re.compile(r"^(Special):\s*(.*)$")
MAX_HEADING = 60
MIN_MATCH = 0.5  # the least share of words a cited heading must have in common with a section's
#: what a call cites where its rulebook has no heading ("MBS (sin sección)": match time, a button
#: out of the field): it links to the book itself
NO_HEADING = "(sin sección)"

# English names of the MBS headings (STYLE.md §12 gives the terms).
MBS_GLOSS = {
    "Turnos": _("Turns"),
    "Pérdida de posesión de la pelota": _("Losing possession of the ball"),
    "Saque de banda e tiro de esquina": _("Throw-in and corner kick"),
    "Falta": _("Foul"),
    "Falta Técnica": _("Technical foul"),
    "Inversión": _("Inversion"),
    "Expulsión": _("Expulsion (sending off)"),
    "Descalificación": _("Disqualification"),
    "Disparo a la meta": _("Shot on goal"),
    "Posición del portero": _("The goalkeeper's position"),
    "Gol inválido": _("Invalid goal"),
    "Gol contra": _("Own goal"),
    "Penal": _("Penalty kick"),
    "Pelota del portero": _("The goalkeeper's ball"),
}


@dataclass
class Block:
    """A paragraph (``text``) or a list (``items``)."""

    text: str = ""
    items: list[str] = field(default_factory=list)


@dataclass
class Section:
    """One section: ``number`` (``"9.3"``, ``"9 Special"``, ``""`` when unnumbered), its
    ``title`` as written (may be empty: ``"5.1)"``), the ``parent`` section's title for a
    subsection (``"Foul"`` for 9.3), its ``anchor`` on the page, ``gloss`` (an
    English name of a Spanish heading, translated when shown) and its ``blocks`` of text."""

    number: str
    title: str
    parent: str = ""
    anchor: str = ""
    gloss: str | Promise = ""
    blocks: list[Block] = field(default_factory=list)

    @property
    def heading(self) -> str:
        if self.number and self.title:
            return f"{self.number}) {self.title}" if " " not in self.number else self.title
        return self.title or f"{self.number})"


@dataclass
class Rulebook:
    """A rulebook: ``key`` (the first word of the referee's ``rule`` strings, lower case),
    its ``name`` and ``short`` name, the rule set it is played under, its language and its sections in order."""

    key: str
    name: str
    short: str
    rule_set: str
    language: str
    sections: list[Section]


def _normal(text: str) -> str:
    """Lower case, accents dropped, only letters, digits and single spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).casefold()
    return " ".join(re.sub(r"[^a-z0-9.]+", " ", text).split())


def _slug(text: str) -> str:
    return _normal(text).replace(".", "-").replace(" ", "-")


def _is_heading(line: str) -> bool:
    if NUMBERED.match(line):
        return True
    return (len(line) <= MAX_HEADING and not line.startswith("-") and line[:1].isupper()
            and not line.endswith((".", ":", ",", ";")))


def parse(text: str, *, key: str, gloss: dict | None = None) -> list[Section]:
    """The sections of a rulebook's ``text`` (see the module's docstring)."""
    lines = [line.strip() for line in text.splitlines()]
    raw: list[Section] = []
    for line in lines:
        if not line:
            continue
        if _is_heading(line):
            numbered = NUMBERED.match(line)
            if numbered:
                number = numbered.group(1)
                parent = next((s.title for s in reversed(raw) if s.number == number.split(".")[0]), "") \
                    if "." in number else ""
                raw.append(Section(number=number, title=numbered.group(2), parent=parent))
            else:
                raw.append(Section(number="", title=line))
            continue
        if not raw:
            continue
        current = raw[-1]
        sub = SUBSECTION.match(line)
        if sub and current.number:
            main = current.number.split(".")[0].rstrip("abcdefghijklmnopqrstuvwxyz")
            parent = next((s.title for s in reversed(raw) if s.number == main), "")
            raw.append(Section(number=f"{main} {sub.group(1)}", title=sub.group(1), parent=parent,
                               blocks=[Block(text=sub.group(2))]))
        elif line.startswith("- "):
            if current.blocks and current.blocks[-1].items:
                current.blocks[-1].items.append(line[2:])
            else:
                current.blocks.append(Block(items=[line[2:]]))
        else:
            current.blocks.append(Block(text=line))
    sections = []
    for i, section in enumerate(raw):
        following_numbered = i + 1 < len(raw) and bool(raw[i + 1].number)
        if not section.blocks and not section.number and not following_numbered:
            continue  # a title line of the document
        section.anchor = f"{key}-{_slug(section.number) if section.number else _slug(section.title)}"
        section.gloss = (gloss or {}).get(section.title, "")  # lazy: shown in the reader's language
        sections.append(section)
    return sections


@cache
def rulebooks() -> tuple[Rulebook, ...]:
    """Both rulebooks, read from the files beside this module once per process."""
    english = (HERE / "button-soccer-rulebook.en.txt").read_text(encoding="utf-8")
    spanish = (HERE / "mbs-online-rules.es.txt").read_text(encoding="utf-8")
    return (
        Rulebook(key="rulebook", name="Button Soccer Rulebook", short="Rulebook", rule_set="one_touch", language="en",
                 sections=parse(english, key="rulebook")),
        Rulebook(key="mbs", name="Reglas del MBS", short="MBS", rule_set="mbs", language="es",
                 sections=parse(spanish, key="mbs", gloss=MBS_GLOSS)),
    )


def find_section(rule: str | None) -> tuple[Rulebook, Section] | None:
    """The rulebook and section that ``rule`` cites: ``"rulebook 9.3"``, ``"rulebook 9 Special"``,
    ``"rulebook Duration of the Game"``, ``"MBS Saque de banda y tiro de esquina"``, or
    ``"MBS (sin sección)"`` (the book itself). A heading is matched by its words (accents and
    case aside); ``None`` when nothing matches."""
    if not rule:
        return None
    head, _sep, rest = rule.strip().partition(" ")
    book = next((b for b in rulebooks() if b.key == head.casefold()), None)
    if book is None or not rest.strip():
        return None
    if rest.strip() == NO_HEADING:  # the book says nothing of it: its top, where the page begins it
        return book, Section(number="", title=str(_("no heading of its own")), anchor=book.key)
    wanted = _normal(rest)
    for section in book.sections:
        if section.number and _normal(section.number) == wanted:
            return book, section
    words = set(wanted.split())
    best, best_score = None, 0.0
    for section in book.sections:
        have = set(_normal(section.title).split())
        if not have:
            continue
        score = len(words & have) / len(words | have)
        if score > best_score:
            best, best_score = section, score
    if best is None or best_score < MIN_MATCH:
        return None
    return book, best


def rule_anchor(rule: str | None) -> str | None:
    """The anchor of the section ``rule`` cites on the ``/rules/`` page, or ``None``."""
    found = find_section(rule)
    return found[1].anchor if found else None


def rule_label(rule: str | None) -> str | None:
    """How the board names the section ``rule`` cites; ``rule`` itself when none matches."""
    found = find_section(rule)
    if found is None:
        return rule
    book, section = found
    if section.number:
        return f"{book.short} {section.number}"
    return f"{book.short}: {section.title}"

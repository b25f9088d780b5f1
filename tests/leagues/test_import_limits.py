"""The limits of a results import (``IMPORT_MAX_BYTES``, ``IMPORT_MAX_ROWS``): a larger file is
refused at once, before it is read whole, with a sentence naming the limit and its setting
(exit 2) and nothing saved; a file at the limits is imported."""
import io
import os
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from leagues.models import Competition, Entrant, Result
from leagues.services.import_files import ImportTooLarge, ResultsFile
from leagues.services.imports import competition_new, results_import

pytestmark = pytest.mark.django_db

HEADER = "home,away,home_goals,away_goals\n"


def results_csv(rows: int) -> str:
    return HEADER + "".join(f"T{2 * i},T{2 * i + 1},{i % 5},{i % 3}\n" for i in range(rows))


def imported(path, slug="limits"):
    call_command("import_results", str(path), "--competition", slug, "--create", "--name", "Limits",
                 stdout=StringIO())


def refusal(path, slug="limits") -> CommandError:
    with pytest.raises(CommandError) as exc:
        imported(path, slug)
    return exc.value


def nothing_saved():
    return not Competition.objects.exists() and not Entrant.objects.exists() and not Result.objects.exists()


class Unreadable(io.BytesIO):
    """An upload of a given ``size`` whose text must not be read."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def read(self, *args):
        raise AssertionError("read before its size was checked")

    readline = read


def test_a_file_over_the_byte_limit_is_refused_by_its_size_before_it_is_read(tmp_path, settings):
    settings.IMPORT_MAX_BYTES = 64
    path = tmp_path / "big.csv"
    path.write_bytes(b"\xff" * 65)  # read, it would be refused as not UTF-8 text
    error = refusal(path)
    assert error.returncode == 2
    assert str(error) == (f"{path}: is 65 bytes, more than the 64 bytes an import takes (setting IMPORT_MAX_BYTES); "
                          "nothing imported")
    assert nothing_saved()
    # an upload: its size says it, nothing of it is read
    with pytest.raises(ImportTooLarge) as exc:
        ResultsFile(Unreadable(size=65))
    assert (exc.value.setting, exc.value.limit) == ("IMPORT_MAX_BYTES", 64)


def test_a_file_of_exactly_the_byte_limit_is_imported_and_one_byte_more_refused(tmp_path, settings):
    text = results_csv(3)
    settings.IMPORT_MAX_BYTES = len(text.encode())
    path = tmp_path / "exact.csv"
    path.write_text(text, encoding="utf-8")
    imported(path)
    assert Result.objects.filter(fixture__competition__slug="limits").count() == 3
    path.write_text(text + "\n", encoding="utf-8")  # one byte more, a blank line
    error = refusal(path, slug="limits-2")
    assert "IMPORT_MAX_BYTES" in str(error) and error.returncode == 2
    assert not Competition.objects.filter(slug="limits-2").exists()


def test_one_row_over_the_limit_is_refused_before_the_rows_are_checked_and_the_limit_imported(tmp_path, settings):
    settings.IMPORT_MAX_ROWS = 3
    path = tmp_path / "rows.csv"
    path.write_text(results_csv(3) + "T8,T9,1,not a number\n", encoding="utf-8")
    error = refusal(path)
    assert error.returncode == 2
    assert str(error) == (f"{path}: holds more than 3 rows of results, the most an import takes "
                          "(setting IMPORT_MAX_ROWS); nothing imported")
    assert nothing_saved()
    with pytest.raises(ImportTooLarge, match="IMPORT_MAX_ROWS"):  # a text in memory, the same limit
        results_import(text=results_csv(4), competition=competition_new(slug="text", name="Text"))
    assert nothing_saved()
    # exactly the limit is imported; blank lines are not rows of results
    path.write_text(results_csv(3).replace("\n", "\n\n", 2), encoding="utf-8")
    imported(path)
    assert Result.objects.filter(fixture__competition__slug="limits").count() == 3


def test_a_file_read_from_a_pipe_is_imported_within_the_limits_and_refused_past_them(settings):
    settings.IMPORT_MAX_BYTES = 200

    def piped(text: str):
        read, write = os.pipe()
        os.write(write, text.encode())
        os.close(write)
        return os.fdopen(read, "rb")

    with piped(results_csv(3)) as pipe:
        summary = results_import(file=ResultsFile(pipe), competition=competition_new(slug="pipe", name="Pipe"))
    assert summary.results == 3 and Result.objects.count() == 3
    with piped(results_csv(20)) as pipe, pytest.raises(ImportTooLarge) as exc:
        ResultsFile(pipe)
    assert str(exc.value) == "is more than the 200 bytes an import takes (setting IMPORT_MAX_BYTES)"

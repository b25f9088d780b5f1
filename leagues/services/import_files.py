"""The file of a results import (COMPETITIONS.md §6), read within its limits.

``ResultsFile(file)`` takes a binary file (an open file, a site upload) and refuses it at once,
before its text is read, when it is larger than ``settings.IMPORT_MAX_BYTES`` (its size from
the upload or the file system) or holds more than ``settings.IMPORT_MAX_ROWS`` rows of results
(counted in a first pass that keeps nothing and stops at the row past the limit).
``ResultsFile.lines()`` then reads it from the start one line at a time, decoded as UTF-8 (a
byte-order mark dropped, line ends as Python's text files give them), so that the parse holds a
line at a time and never the whole text. Both limits are the command's and the site's alike.
"""
from __future__ import annotations

import csv
import io
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import BinaryIO

from django.conf import settings
from django.utils.translation import gettext as _

SPOOL_IN_MEMORY = 1024 * 1024  # a file that cannot be read twice is copied: in memory up to 1 MiB
CHUNK = 64 * 1024


class ImportFileError(ValueError):
    """A file refused whole: ``line`` (1 is the header; None: the whole file) and ``column`` say where."""

    def __init__(self, line: int | None, column: str | None, message: str):
        self.line, self.column, self.message = line, column, message
        shown = column if column is None or column.isprintable() else repr(column)
        if line is None:
            super().__init__(message)
            return
        if column:
            where = _("line %(line)s, column %(column)s") % {"line": line, "column": shown}
        else:
            where = _("line %(line)s") % {"line": line}
        super().__init__(f"{where}: {message}")


class ImportTooLarge(ImportFileError):
    """A file over a limit, refused before it is read whole: ``setting`` is the limit's name
    (``IMPORT_MAX_BYTES``, ``IMPORT_MAX_ROWS``), ``limit`` its value."""

    def __init__(self, setting: str, limit: int, message: str):
        self.setting, self.limit = setting, limit
        super().__init__(None, None, message)


def _too_many_bytes(size: int | None, limit: int) -> ImportTooLarge:
    if size is None:
        message = _("is more than the %(limit)s bytes an import takes (setting %(setting)s)")
    else:
        message = _("is %(size)s bytes, more than the %(limit)s bytes an import takes (setting %(setting)s)")
    return ImportTooLarge("IMPORT_MAX_BYTES", limit, message % {
        "size": size, "limit": limit, "setting": "IMPORT_MAX_BYTES"})


def _size_of(file) -> int | None:
    """The file's size in bytes without reading it: an upload's ``size``, a regular file's
    size on disk, a seekable stream's end; None when it cannot be known (a pipe)."""
    size = getattr(file, "size", None)
    if isinstance(size, int):
        return size
    try:
        status = os.fstat(file.fileno())
    except (AttributeError, OSError, io.UnsupportedOperation):
        pass
    else:
        return status.st_size if stat.S_ISREG(status.st_mode) else None
    if getattr(file, "seekable", lambda: False)():
        here = file.tell()
        end = file.seek(0, io.SEEK_END)
        file.seek(here)
        return end
    return None


def refuse_over_byte_limit(file) -> None:
    """Raises ``ImportTooLarge`` when ``file``'s size (known without reading it) is over
    ``settings.IMPORT_MAX_BYTES``; a size that cannot be known passes (the reading counts)."""
    size = _size_of(file)
    if size is not None and size > settings.IMPORT_MAX_BYTES:
        raise _too_many_bytes(size, settings.IMPORT_MAX_BYTES)


class ResultsFile:
    """A results file within the limits (``ImportTooLarge`` otherwise, from the constructor).

    ``file``: binary, with ``readline``; read from its start. A file whose size cannot be known
    or that cannot be read twice (a pipe) is copied first, at most the byte limit and one byte,
    into a temporary file. ``rows`` is the number of rows of results (blank lines not counted).
    A line that is not UTF-8 raises ``ImportFileError`` naming it, here or from ``lines()``."""

    def __init__(self, file: BinaryIO):
        self.max_bytes, self.max_rows = settings.IMPORT_MAX_BYTES, settings.IMPORT_MAX_ROWS
        size = _size_of(file)
        if size is not None and size > self.max_bytes:
            raise _too_many_bytes(size, self.max_bytes)
        if size is None or not getattr(file, "seekable", lambda: False)():
            file = self._spooled(file)
        self._file = file
        self.rows = self._count_rows()

    @classmethod
    def of_text(cls, text: str) -> ResultsFile:
        """The file of a text already in memory (its UTF-8 bytes count against the limit)."""
        return cls(io.BytesIO(text.encode("utf-8", "surrogatepass")))

    def _spooled(self, file) -> BinaryIO:
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
        copied = 0
        while chunk := file.read(CHUNK):
            copied += len(chunk)
            if copied > self.max_bytes:
                spool.close()
                raise _too_many_bytes(None, self.max_bytes)
            spool.write(chunk)
        return spool

    def _count_rows(self) -> int:
        """The rows of results after the header, counted up to the limit: one more is
        ``ImportTooLarge``. A line the csv module cannot read ends the count (the parse names it)."""
        reader = csv.reader(self.lines())
        rows = 0
        try:
            next(reader, None)  # the header
            for values in reader:
                if any(v.strip() for v in values):
                    rows += 1
                    if rows > self.max_rows:
                        raise ImportTooLarge("IMPORT_MAX_ROWS", self.max_rows, _(
                            "holds more than %(limit)s rows of results, the most an import takes (setting %(setting)s)")
                            % {"limit": self.max_rows, "setting": "IMPORT_MAX_ROWS"})
        except csv.Error:
            pass
        return rows

    def lines(self) -> Iterator[str]:
        """The lines from the start, decoded, each with its line end (``\\r\\n`` and ``\\r`` read
        as ``\\n``, as a text file reads them); a file grown past the byte limit since it was
        measured is ``ImportTooLarge``."""
        self._file.seek(0)
        read = 0
        for number, raw in enumerate(iter(self._file.readline, b""), start=1):
            read += len(raw)
            if read > self.max_bytes:
                raise _too_many_bytes(None, self.max_bytes)
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError:
                raise ImportFileError(number, None, _("not UTF-8 text")) from None
            if "\r" not in text:
                yield text
                continue
            *ended, last = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for part in ended:
                yield part + "\n"
            if last:
                yield last

"""Writing thousands of rows at once (an import, a recomputation), without building a query
of thousands of placeholders or converting every value through the ORM's generic path.

``objects_insert(model, objs)`` inserts unsaved model objects in one ``COPY`` on PostgreSQL
and with one prepared statement run for each row on SQLite (``executemany``);
``rows_insert(model, columns, rows)`` does the same for plain tuples. Neither sets the
objects' primary keys: a caller that needs them reads them back by a key it knows unique
(``leagues.services.imports`` reads the fixtures back by round, group and position). Both
run in the caller's transaction; a constraint broken raises ``IntegrityError`` as ``save``
would, and the transaction is rolled back whole.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connections, router
from django.db.models import Model

# the column types whose Python value is the database's value already (no conversion needed)
_PLAIN = {
    "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField",
    "PositiveIntegerField", "PositiveSmallIntegerField", "PositiveBigIntegerField", "CharField",
    "TextField", "SlugField", "BooleanField", "ForeignKey", "OneToOneField",
}


def rows_insert(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence]) -> None:
    """Inserts ``rows`` (tuples of database values in the order of ``columns``, the model's
    column names)."""
    rows = list(rows)
    if not rows:
        return
    connection = connections[router.db_for_write(model)]
    quote = connection.ops.quote_name
    target = f"{quote(model._meta.db_table)} ({', '.join(quote(c) for c in columns)})"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY: the rows streamed in one command, several times faster than INSERTs
            with cursor.copy(f"COPY {target} FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            cursor.executemany(f"INSERT INTO {target} VALUES ({', '.join(['%s'] * len(columns))})", rows)


def objects_insert(model: type[Model], objs: Sequence[Model]) -> None:
    """Inserts the unsaved ``objs`` (every concrete field but the automatic primary key, with
    ``auto_now``/``auto_now_add`` and defaults applied as ``save`` applies them)."""
    if not objs:
        return
    connection = connections[router.db_for_write(model)]
    fields = [f for f in model._meta.concrete_fields if not (f.primary_key and f.get_internal_type().endswith("AutoField"))]
    plain = [f.get_internal_type() in _PLAIN for f in fields]
    rows = []
    for obj in objs:
        row = []
        for f, is_plain in zip(fields, plain, strict=True):
            value = f.pre_save(obj, True)
            row.append(value if is_plain or value is None else f.get_db_prep_save(value, connection))
        rows.append(row)
    rows_insert(model, [f.column for f in fields], rows)

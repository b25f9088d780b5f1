"""Writing thousands of rows at once (an import, a recomputation), without building a query
of thousands of placeholders or converting every value through the ORM's generic path.

``objects_insert(model, objs)`` inserts unsaved model objects in one ``COPY`` on PostgreSQL
and with one prepared statement run for each row on SQLite (``executemany``);
``rows_insert(model, columns, rows)`` does the same for plain tuples. Neither sets the
objects' primary keys: a caller that needs them reserves them first with ``ids_reserve`` and
sets them (``objects_insert(..., with_pk=True)``), as ``leagues.services.imports`` does for the
fixtures its results point to. All run in the caller's transaction; a constraint broken raises
``IntegrityError`` as ``save`` would, and the transaction is rolled back whole.
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


def ids_reserve(model: type[Model], count: int) -> list[int]:
    """``count`` new ids of ``model``'s automatic primary key, in increasing order, that no
    other row takes: from its sequence on PostgreSQL; on SQLite after the largest id the table
    has had (the caller's transaction holds the database's write lock, and inserts these ids
    before it reserves more)."""
    if count <= 0:
        return []
    connection = connections[router.db_for_write(model)]
    table, column = model._meta.db_table, model._meta.pk.column
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                           [connection.ops.quote_name(table), column, count])
            return sorted(row[0] for row in cursor.fetchall())
        # AUTOINCREMENT: the table's sequence never goes back, even when its last rows are deleted
        cursor.execute(f"SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = %s), 0), "
                       f"COALESCE((SELECT MAX({connection.ops.quote_name(column)}) FROM "
                       f"{connection.ops.quote_name(table)}), 0))", [table])
        last = cursor.fetchone()[0]
    return list(range(last + 1, last + 1 + count))


def objects_insert(model: type[Model], objs: Sequence[Model], *, with_pk: bool = False) -> None:
    """Inserts the unsaved ``objs`` (every concrete field, with ``auto_now``/``auto_now_add``
    and defaults applied as ``save`` applies them; the automatic primary key only ``with_pk``,
    set from ``ids_reserve``)."""
    if not objs:
        return
    connection = connections[router.db_for_write(model)]
    fields = [f for f in model._meta.concrete_fields
              if with_pk or not (f.primary_key and f.get_internal_type().endswith("AutoField"))]
    plain = [f.get_internal_type() in _PLAIN for f in fields]
    rows = []
    for obj in objs:
        row = []
        for f, is_plain in zip(fields, plain, strict=True):
            value = f.pre_save(obj, True)
            row.append(value if is_plain or value is None else f.get_db_prep_save(value, connection))
        rows.append(row)
    rows_insert(model, [f.column for f in fields], rows)

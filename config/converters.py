"""The ``id`` path converter: a row's id in a URL (``<id:pk>``), registered on import.

Like Django's ``int``, but only what a primary key can be (1 to 2**63 - 1, a PostgreSQL
bigint): a larger number is no route (404) rather than a query the database refuses (SQLite
raises OverflowError on it: a 500). Every URL and WebSocket route with an id uses it."""
from django.urls import register_converter

MAX_ID = 2**63 - 1


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if not 0 < number <= MAX_ID:
            raise ValueError(f"{value} is no id")  # no match: the resolver answers 404
        return number

    def to_url(self, value: int) -> str:
        return str(int(value))


register_converter(IdConverter, "id")

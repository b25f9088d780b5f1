"""``manage.py load_demo [--if-empty]``: the demo federation ``make run`` serves."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from leagues.services.demo import DEMO_ADMIN, DEMO_ORGANISER, demo_is_loaded, demo_load, demo_reopen


class Command(BaseCommand):
    help = "Loads a demo federation: clubs, players, a part-played league and cup, an admin."

    def add_arguments(self, parser):
        parser.add_argument("--if-empty", action="store_true", help="do nothing when the database has data")

    def handle(self, *args, if_empty, **options):
        if if_empty and demo_is_loaded():
            moved = demo_reopen()
            self.stdout.write(f"The database has data already; demo not loaded. "
                              f"{moved} demo fixture(s) open for check-in again.")
            return
        summary = demo_load()
        self.stdout.write(self.style.SUCCESS(
            f"Demo federation: {summary.clubs} clubs, {summary.players} players, "
            f"competitions {', '.join(summary.competitions)}. Admin: {DEMO_ADMIN[0]} / {DEMO_ADMIN[1]}, "
            f"organiser: {DEMO_ORGANISER[0]} / {DEMO_ORGANISER[1]} (demo only)."
        ))

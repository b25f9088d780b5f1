"""``manage.py load_demo [--if-empty] [--i-know-this-is-not-production]``: the demo federation
``make run`` serves.

With ``DEBUG`` on (development) the demo accounts get the README's passwords. With ``DEBUG`` off
the command refuses to run (it looks like a production site), unless given
``--i-know-this-is-not-production``; then every demo account gets its own random password,
printed once, and no default password is left (accounts from an earlier run included).
"""
from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from leagues.services.demo import DEMO_ADMIN, DEMO_ORGANISER, demo_is_loaded, demo_load, demo_reopen


class Command(BaseCommand):
    help = "Loads a demo federation: clubs, players, a part-played league and cup, an admin."

    def add_arguments(self, parser):
        parser.add_argument("--if-empty", action="store_true", help="do nothing when the database has data")
        parser.add_argument(
            "--i-know-this-is-not-production", action="store_true", dest="not_production",
            help="load it although DEBUG is off; every demo account then gets a random password, printed once",
        )

    def handle(self, *args, if_empty, not_production, **options):
        if not settings.DEBUG and not not_production:
            raise CommandError(_(
                "DEBUG is off, so this looks like a production site: the demo is not loaded. On a "
                "test site, give --i-know-this-is-not-production (its accounts get random passwords)."
            ))
        if if_empty and demo_is_loaded():
            moved = demo_reopen()
            self.stdout.write(f"The database has data already; demo not loaded. "
                              f"{moved} demo fixture(s) open for check-in again.")
            return
        summary = demo_load(random_passwords=not settings.DEBUG)
        self.stdout.write(self.style.SUCCESS(
            f"Demo federation: {summary.clubs} clubs, {summary.players} players, "
            f"competitions {', '.join(summary.competitions)}."
        ))
        if summary.passwords:
            self.stdout.write(_("DEBUG is off: each demo account has a random password (shown only now):"))
            for username, password in summary.passwords.items():
                self.stdout.write(f"  {username} / {password}")
        else:
            self.stdout.write(
                f"Admin: {DEMO_ADMIN[0]} / {DEMO_ADMIN[1]}, organiser: {DEMO_ORGANISER[0]} / {DEMO_ORGANISER[1]} "
                f"(demo only)."
            )

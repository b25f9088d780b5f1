"""``manage.py standings SLUG [--json]`` (COMPETITIONS.md §7): the stored tables."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from leagues.selectors import competition_get, standings_tables
from leagues.services.standings import standings_recompute


def signed(number: int) -> str:
    """A goal difference as printed: "+3", "-2", and "0" (not "+0")."""
    return f"{number:+d}" if number else "0"


class Command(BaseCommand):
    help = "Prints a competition's standings (one table per group); --json as COMPETITIONS.md §7."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--json", action="store_true", dest="as_json")
        parser.add_argument("--recompute", action="store_true", help="recompute from the results first")

    def handle(self, *args, slug, as_json, recompute, **options):
        competition = competition_get(slug=slug)
        if competition is None:
            raise CommandError(f"no competition {slug!r}")
        if recompute or not competition.standings.exists():
            standings_recompute(competition_id=competition.pk, force=recompute)
        data = standings_tables(competition=competition)
        if as_json:
            self.stdout.write(json.dumps(data, ensure_ascii=False))
            return
        self.stdout.write(competition.name)
        for table in data["tables"]:
            if table["group"] is not None:
                self.stdout.write(f"\nGroup {table['group']}")
            width = max([len(r["entrant"]) for r in table["rows"]] + [7])
            self.stdout.write(f"{'#':>3}  {'Entrant':<{width}}  {'P':>2} {'W':>2} {'D':>2} {'L':>2}  {'GF':>3}:{'GA':<3} {'GD':>4}  {'Pts':>3}")
            for r in table["rows"]:
                place = f"{r['position']}=" if r.get("shared") else str(r["position"])
                line = (
                    f"{place:>3}  {r['entrant']:<{width}}  {r['played']:>2} {r['won']:>2} {r['drawn']:>2} "
                    f"{r['lost']:>2}  {r['goals_for']:>3}:{r['goals_against']:<3} {signed(r['goal_difference']):>4}  {r['points']:>3}"
                )
                if r["tiebreak"]:
                    line += f"  ({r['tiebreak']})"
                self.stdout.write(line)

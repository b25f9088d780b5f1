"""``manage.py import_results FILE.csv --competition SLUG [--create --name NAME --preset PRESET
--points 3,1,0]`` (COMPETITIONS.md §6-7): a bad file is refused whole, nothing saved.

Every refusal (a bad file, option or slug) exits 2 with one line saying what and where (the
line and column, or the option), never a traceback. A file over ``IMPORT_MAX_BYTES`` or
``IMPORT_MAX_ROWS`` is refused before it is read whole (``leagues.services.import_files``)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from leagues.models import Competition, Season, TiebreakPreset, is_printable_text
from leagues.selectors import competition_get
from leagues.services.import_files import ResultsFile
from leagues.services.imports import (
    CompetitionExists,
    ImportFileError,
    competition_new,
    parse_points,
    results_import,
)
from leagues.services.standings import standings_recompute
from leagues.services.team_imports import is_team_file, team_results_import
from leagues.slugs import slug_problem

REFUSED = 2  # the exit status of a refused file or option


class Command(BaseCommand):
    help = "Imports a results CSV into a competition (creating it with --create) and ranks it."

    def add_arguments(self, parser):
        parser.add_argument("file", help="UTF-8 CSV with a header row (COMPETITIONS.md §6)")
        parser.add_argument("--competition", required=True, metavar="SLUG")
        parser.add_argument("--create", action="store_true", help="create the competition first")
        parser.add_argument("--name", help="the new competition's name (with --create)")
        parser.add_argument("--preset", default=TiebreakPreset.FISTF, choices=TiebreakPreset.values,
                            help="tie-break preset (with --create; default fistf)")
        parser.add_argument("--criteria", default="", help="with --preset custom: keys after points, comma-separated")
        parser.add_argument("--points", default="3,1,0", help="points for a win, a draw, a loss (with --create)")
        parser.add_argument("--format", default=Competition.Format.LEAGUE, choices=Competition.Format.values,
                            help="the new competition's format (with --create; default league)")
        parser.add_argument("--rounds", type=int, metavar="N",
                            help="a new Swiss's number of rounds (with --create --format swiss; default: the file's)")
        parser.add_argument("--season", metavar="SLUG",
                            help="the new competition's season (with --create; default: the season of the dates)")
        parser.add_argument("--update", action="store_true",
                            help="a row for a pairing that already has a result corrects it (otherwise refused)")

    def handle(self, *args, file, competition, create, name, preset, criteria, points, format, season, update,
               rounds=None, **options):
        problem = slug_problem(competition, max_length=Competition._meta.get_field("slug").max_length)
        if problem:
            raise CommandError(f"--competition: {problem}", returncode=REFUSED)
        if season and (problem := slug_problem(season, max_length=Season._meta.get_field("slug").max_length)):
            raise CommandError(f"--season: {problem}", returncode=REFUSED)
        name_max = Competition._meta.get_field("name").max_length
        if name is not None and (not name.strip() or not is_printable_text(name) or len(name) > name_max):
            raise CommandError(_("--name: give a name of 1 to %(max)s printable characters") % {"max": name_max}, returncode=REFUSED)
        try:
            opened = open(file, "rb")  # closed when the import ends, below
        except FileNotFoundError:
            raise CommandError(_("%(file)s: no such file") % {"file": file}, returncode=REFUSED) from None
        except OSError as exc:
            raise CommandError(_("%(file)s: cannot be read (%(error)s)") % {"file": file, "error": exc.strerror or exc}, returncode=REFUSED) from None
        with opened:
            self._import(opened, file=file, competition=competition, create=create, name=name, preset=preset,
                         criteria=criteria, points=points, format=format, season=season, update=update,
                         rounds=rounds)

    def _import(self, opened, *, file, competition, create, name, preset, criteria, points, format, season, update,
                rounds):
        try:
            # its size and its rows checked before its text is read (IMPORT_MAX_BYTES, IMPORT_MAX_ROWS)
            results_file = ResultsFile(opened)
        except ImportFileError as exc:
            raise CommandError(_("%(file)s: %(error)s; nothing imported") % {"file": file, "error": exc}, returncode=REFUSED) from None
        except OSError as exc:
            raise CommandError(_("%(file)s: cannot be read (%(error)s)") % {"file": file, "error": exc.strerror or exc}, returncode=REFUSED) from None

        existing = competition_get(slug=competition)
        if create:
            if existing is not None:
                raise CommandError(str(CompetitionExists(competition)), returncode=REFUSED)
            season_obj = None
            if season:
                season_obj = Season.objects.filter(slug=season).first()
                if season_obj is None:
                    raise CommandError(_("no season %(slug)r") % {"slug": season}, returncode=REFUSED)
            try:
                target = competition_new(
                    slug=competition, name=name or competition, preset=preset,
                    criteria=[c.strip() for c in criteria.split(",") if c.strip()],
                    points=parse_points(points), format=format, season=season_obj, rounds=rounds,
                )
            except ValueError as exc:
                raise CommandError(str(exc), returncode=REFUSED) from None
        else:
            if rounds is not None:
                raise CommandError(_("--rounds: only with --create (a new Swiss)"), returncode=REFUSED)
            if existing is None:
                raise CommandError(_("no competition %(slug)r; add --create --name NAME to create it")
                                   % {"slug": competition}, returncode=REFUSED)
            target = existing

        try:
            if is_team_file(competition=target, file=results_file):  # one row per game (COMPETITIONS.md §10)
                summary = team_results_import(file=results_file, competition=target, update=update)
            else:
                summary = results_import(file=results_file, competition=target, update=update)
        except ImportFileError as exc:
            raise CommandError(_("%(file)s: %(error)s; nothing imported") % {"file": file, "error": exc}, returncode=REFUSED) from None
        except CompetitionExists as exc:  # another import of the same slug saved it meanwhile
            raise CommandError(str(exc), returncode=REFUSED) from None
        # once, here or by the task the import sent (whichever comes first; the other finds it current)
        standings_recompute(competition_id=summary.competition.pk)
        counts = {"competition": summary.competition.slug, "results": summary.results,
                  "entrants": summary.entrants_created}
        if summary.created:
            done = _("%(competition)s: created, %(results)s results, %(entrants)s new entrants") % counts
        else:
            done = _("%(competition)s: updated, %(results)s results, %(entrants)s new entrants") % counts
        self.stdout.write(self.style.SUCCESS(done))

"""The site's pages: fans read competitions, clubs and players; organisers run their
competitions. Every write goes through a service; every organiser page checks
``leagues.permissions`` and is CSRF-protected by the middleware."""
from __future__ import annotations

import functools

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.functional import cached_property
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from leagues import pagecache
from leagues.forms import CompetitionForm, EntrantForm, WithdrawForm
from leagues.models import (
    Club,
    ClubMembership,
    Competition,
    Entrant,
    Fixture,
    Player,
    ResultReport,
    Season,
    Standing,
)
from leagues.permissions import (
    can_create_competition,
    can_manage_competition,
    is_referee,
    managed_competitions,
)
from leagues.rules.standings import CRITERIA
from leagues.selectors import live_matches_of
from leagues.selectors.pages import (
    bracket_split,
    competitions_with_progress,
    double_elimination_brackets,
    fixtures_qs,
    latest_results,
    next_fixtures,
    next_placed_table,
    tables_with_qualifiers,
    team_games_of,
)
from leagues.selectors.reports import overdue_fixtures
from leagues.selectors.rounds import competition_rounds, knockout_fixtures, shown_rounds
from leagues.services import competitions, swiss_rounds
from leagues.services.entrants import (
    EntrantError,
    entrant_add,
    entrant_remove,
    entrant_withdraw,
    withdrawal_preview,
)
from leagues.services.fixtures import ScheduleError, fixtures_generate
from leagues.services.locks import Busy
from leagues.services.results import ResultConflict
from leagues.services.seeding import SeedingError
from leagues.services.standings import standings_recompute
from leagues.services.tokens import token_revoke, tokens_of, tokens_revoke_all
from leagues.views.fixtures import round_reschedule_form
from leagues.views.organiser_tools import ResultsUploadForm
from leagues.views.year import manage_sign_up_context, player_year_context, sign_up_context

LATEST_RESULTS = 10  # the latest results on a competition's page
ORGANISER_OPEN_FIXTURES = 200  # the fixtures to play the organiser's page lists (the rest: the round pages)
LIST_PAGE_SIZE = 120  # the clubs or competitions a list's page shows (``?page=`` beyond)


def home(request: HttpRequest) -> HttpResponse:
    competitions = list(competitions_with_progress().order_by("-created_at"))
    in_progress = [c for c in competitions if c.open_count]
    return render(request, "leagues/home.html", {
        "in_progress": in_progress,
        "other_competitions": [c for c in competitions if not c.open_count][:6],
        "latest_results": latest_results(),
        "next_fixtures": next_fixtures(),
        "counts": {
            "clubs": Club.objects.count(), "players": Player.objects.count(),
            "competitions": len(competitions),
        },
    })


def competition_list(request: HttpRequest) -> HttpResponse:
    """The competitions by season, the latest first, ``LIST_PAGE_SIZE`` a page (``?page=``)."""
    competitions = competitions_with_progress().order_by("-season__start_date", "-created_at", "-pk")
    page = Paginator(competitions, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    seasons: dict = {}
    for competition in page.object_list:
        seasons.setdefault(competition.season, []).append(competition)
    return render(request, "leagues/competition_list.html", {"seasons": list(seasons.items()), "page": page})


def competition_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """The competition's page; anonymous visitors get it from the cache (``leagues.pagecache``),
    signed-in readers its shared parts from the cache as fragments (``_CompetitionParts``)."""
    scope = pagecache.competition_scope(slug)
    if scope is None:
        raise Http404("no such competition")
    return pagecache.cached_page(request, name="competition", scope=scope,
                                 build=lambda: _competition_page(request, slug, scope))


class _CompetitionParts:
    """What the page's shared parts show (the standings or the bracket, the rounds shown, the
    latest results, the entrants), each read when first asked for: a reader whose fragments are
    in the cache (``{% cache %}`` under ``fragments``, the page's versions and language) asks for
    none of them, and costs the few queries of their own parts."""

    def __init__(self, competition: Competition):
        self.competition = competition

    @cached_property
    def rounds(self) -> list:
        return competition_rounds(self.competition)

    @cached_property
    def shown_rounds(self) -> list:
        return shown_rounds(self.competition, self.rounds)

    @cached_property
    def fixtures(self) -> list[Fixture]:
        fixtures = knockout_fixtures(self.competition, self.rounds)
        for fixture in fixtures:
            fixture.competition = self.competition  # known: not joined into every row
        return fixtures

    @cached_property
    def double(self) -> bool:
        return self.competition.format == Competition.Format.DOUBLE_ELIMINATION

    @cached_property
    def split(self) -> tuple[list, list]:
        return _bracket_of(self.fixtures) if not self.double else ([], [])

    @cached_property
    def brackets(self) -> list:
        return double_elimination_brackets(_knockout_rounds(self.fixtures)) if self.double else []

    @cached_property
    def tables(self) -> list:
        return tables_with_qualifiers(self.competition)

    def context(self) -> dict:
        """The template's names for the shared parts, each a call the template makes when (and
        only when) it renders that part."""
        competition, current = self.competition, (lambda: self.shown_rounds)
        return {
            "tables": lambda: self.tables,
            "next_placed": functools.cache(lambda: next_placed_table(competition)),
            "criteria": lambda: [CRITERIA[k] for k in competition.criteria if k in CRITERIA],
            "rounds": lambda: self.rounds,
            "shown_rounds": current,
            # the rounds' navigation: the one before the round under way, the one after those shown
            "previous": lambda: (self.rounds[current()[0].number - 2] if current() and current()[0].number > 1
                                 else None),
            "following": lambda: (self.rounds[current()[-1].number] if current() and current()[-1].number
                                  < len(self.rounds) else None),
            "marked": lambda: current()[0].round.pk if current() else None,
            "latest": functools.cache(lambda: latest_results(
                fixtures_qs().filter(competition=competition), limit=LATEST_RESULTS) if self.rounds else []),
            "bracket": lambda: self.split[0] or self.brackets,
            "bracket_extra": lambda: self.split[1],
            "brackets": lambda: self.brackets,
            "entrants": functools.cache(lambda: list(
                competition.entrants.select_related("club", "player").order_by("seed", "name"))),
            # its rounds name their bracket
            "multi_stage": lambda: len({r.round.stage_id for r in self.rounds}) > 1 and not self.double,
            "standings_current": competition.derived_version >= competition.results_version,
            "standings_updated": lambda: max((r.computed_at for t in self.tables for r in t["rows"]), default=None),
        }


def _competition_page(request: HttpRequest, slug: str, scope: tuple) -> HttpResponse:
    """The standings (or the bracket), the round under way and the next, the latest results and
    the rounds' list: what one round costs, whatever the length of the season (every round on
    its own page, ``leagues.views.rounds``). The shared parts are fragments in the cache, keyed
    by the page's versions and language (``fragments``); the reader's own parts (the
    organisers' buttons and conflicts, the referees' link, their sign-up) are rendered for them."""
    competition = get_object_or_404(competitions_with_progress(), slug=slug)
    parts = _CompetitionParts(competition)
    manage = can_manage_competition(request.user, competition)
    return render(request, "leagues/competition_detail.html", {
        "competition": competition,
        **parts.context(),
        "fragments": pagecache.scoped_key("fragment:competition", scope),
        "fragments_ttl": pagecache.PAGE_TTL,
        "can_manage": manage,
        "can_referee": is_referee(request.user, competition),
        "swiss_next": (swiss_rounds.next_round(competition) if competition.format == Competition.Format.SWISS
                       and manage else None),
        # a Swiss is paired a round at a time: its progress is in rounds, and it goes on between them
        "swiss_paired": (swiss_rounds.rounds_paired(competition) if competition.format == Competition.Format.SWISS
                         else None),
        "live_matches": list(live_matches_of(competition=competition)[:20]),
        "conflicts": (lambda: _conflicts(competition, parts.fixtures)) if manage else [],
        **sign_up_context(request, competition),
    })


def _knockout_rounds(fixtures: list[Fixture]) -> list[tuple]:
    """``knockout_rounds`` from the fixtures loaded already (in stage, round, position order)."""
    rounds: list[tuple] = []
    for fixture in fixtures:
        if fixture.round.stage.kind != "knockout":
            continue
        if not rounds or rounds[-1][0].pk != fixture.round_id:
            rounds.append((fixture.round, []))
        rounds[-1][1].append(fixture)
    return rounds


def _bracket_of(fixtures: list[Fixture]) -> tuple[list[dict], list[dict]]:
    """``bracket_columns`` from the fixtures loaded already (in stage, round, position order)."""
    return bracket_split(_knockout_rounds(fixtures))


def _conflicts(competition: Competition, fixtures: list[Fixture]) -> list[dict]:
    """The knockout fixtures, decided or started, that the results would now fill otherwise."""
    if not competition.derived_conflicts:
        return []
    by_id = {f.pk: f for f in fixtures}
    missing = {c.get("fixture") for c in competition.derived_conflicts} - set(by_id) - {None}
    if missing:  # a conflict outside the bracket's fixtures loaded already
        by_id.update(fixtures_qs().filter(competition=competition).in_bulk(list(missing)))
    names = dict(competition.entrants.values_list("pk", "name"))
    out = []
    for conflict in competition.derived_conflicts:
        fixture = by_id.get(conflict.get("fixture"))
        if fixture is None:
            continue
        out.append({"fixture": fixture,
                    "would_hold": [names.get(pk, "?") if pk else "?" for pk in conflict.get("would_hold", [])]})
    return out


def club_list(request: HttpRequest) -> HttpResponse:
    clubs = Club.objects.annotate(
        members=Count("memberships", filter=Q(memberships__end_date__isnull=True))
    ).order_by("name", "pk")
    page = Paginator(clubs, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "leagues/club_list.html", {"page": page})


def club_detail(request: HttpRequest, slug: str) -> HttpResponse:
    club = get_object_or_404(Club, slug=slug)
    memberships = ClubMembership.objects.filter(club=club).select_related("player")
    fixtures = fixtures_qs().filter(Q(home__club=club) | Q(away__club=club))
    return render(request, "leagues/club_detail.html", {
        "club": club,
        "members": memberships.filter(end_date__isnull=True).order_by("player__last_name"),
        "former": memberships.filter(end_date__isnull=False).order_by("-end_date")[:20],
        "results": latest_results(fixtures, limit=12),
        "upcoming": next_fixtures(fixtures, limit=12),
        "competitions": Competition.objects.filter(entrants__club=club).distinct().order_by("-created_at")[:12],
    })


def player_list(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    players = Player.objects.prefetch_related(
        Prefetch("memberships", queryset=ClubMembership.objects.filter(end_date__isnull=True).select_related("club"),
                 to_attr="current")
    ).order_by("last_name", "first_name")
    if query:
        players = players.filter(
            Q(first_name__icontains=query) | Q(last_name__icontains=query) | Q(licence_number__icontains=query)
        )
    page = Paginator(players, 60).get_page(request.GET.get("page"))
    return render(request, "leagues/player_list.html", {"page": page, "query": query})


def player_detail(request: HttpRequest, pk: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=pk)
    fixtures = fixtures_qs().filter(Q(home__player=player) | Q(away__player=player))
    entries = list(player.entries.select_related("competition", "club").order_by("-competition__created_at"))
    standings = {s.entrant_id: s for s in Standing.objects.filter(entrant__player=player).select_related("group")}
    for entry in entries:
        entry.standing = standings.get(entry.pk)
    return render(request, "leagues/player_detail.html", {
        "player": player,
        "memberships": player.memberships.select_related("club").order_by("-start_date"),
        "entries": entries,
        "results": latest_results(fixtures, limit=15),
        "upcoming": next_fixtures(fixtures, limit=10),
        "team_games": team_games_of(player),
        **player_year_context(player),
    })


# --- Accounts ----------------------------------------------------------------------------------


@login_required
def api_tokens(request: HttpRequest) -> HttpResponse:
    """``/accounts/tokens/``: the signed-in user's live API tokens; POST ``revoke`` (a token's
    ``digest``) or ``revoke_all`` revokes."""
    if request.method == "POST":
        if "revoke_all" in request.POST:
            count = tokens_revoke_all(user=request.user)
            messages.success(request, _("All your API tokens are revoked (%(count)d).") % {"count": count})
        elif token_revoke(user=request.user, digest=request.POST.get("revoke", "")[:128]):
            messages.success(request, _("The token is revoked: programs using it are refused from now on."))
        else:
            messages.error(request, _("There is no such token among yours."))
        return redirect("api-tokens")
    return render(request, "registration/api_tokens.html", {
        "tokens": tokens_of(user=request.user), "ttl_days": settings.API_TOKEN_TTL_DAYS,
    })


# --- Organisers ---------------------------------------------------------------------------------


def _managed_or_403(request: HttpRequest, slug: str) -> Competition:
    competition = get_object_or_404(Competition, slug=slug)
    if not can_manage_competition(request.user, competition):
        raise PermissionDenied("You do not organise this competition.")
    return competition


@login_required
def manage_index(request: HttpRequest) -> HttpResponse:
    competitions = managed_competitions(
        request.user, competitions_with_progress()
    ).order_by("-created_at")
    return render(request, "leagues/manage/index.html", {
        "competitions": competitions,
        "can_create": can_create_competition(request.user),
    })


@login_required
def competition_create(request: HttpRequest) -> HttpResponse:
    if not can_create_competition(request.user):
        raise PermissionDenied("Creating a competition needs the organiser permission.")
    form = CompetitionForm(request.POST if request.method == "POST" else None, initial={"season": Season.objects.filter(is_current=True).first()})
    if request.method == "POST" and form.is_valid():
        try:
            competition = competitions.competition_create(fields=form.competition_fields(), auto_slug=not form.slug_given,
                                                          organiser=request.user,
                                                          referees=form.cleaned_data.get("referees") or ())
        except competitions.SlugTaken as exc:
            form.add_error("slug", str(exc))
            return render(request, "leagues/manage/competition_form.html", {"form": form, "competition": None})
        messages.success(request, _("%(competition)s is created. Now add its entrants.") % {"competition": competition})
        return redirect("site:manage-competition", slug=competition.slug)
    return render(request, "leagues/manage/competition_form.html", {"form": form, "competition": None})


@login_required
def competition_edit(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _managed_or_403(request, slug)
    form = CompetitionForm(request.POST if request.method == "POST" else None, instance=competition)
    if request.method == "POST" and form.is_valid():
        competitions.competition_update(competition=competition, data=form.changed_values(), by=request.user)
        messages.success(request, _("The settings are saved."))
        return redirect("site:manage-competition", slug=competition.slug)
    return render(request, "leagues/manage/competition_form.html", {"form": form, "competition": competition})


@login_required
def manage_competition(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _managed_or_403(request, slug)
    form = EntrantForm(request.POST if request.method == "POST" else None, competition=competition)
    has_fixtures = competition.fixtures.exists()
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            entrant = entrant_add(competition=competition, name=data["name"], player=data["player"],
                                  club=data["club"], seed=data["seed"])
        except EntrantError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("%(entrant)s is entered.") % {"entrant": entrant})
            return redirect("site:manage-competition", slug=competition.slug)
    open_qs = fixtures_qs().filter(competition=competition, status__in=Fixture.OPEN)
    open_fixtures = list(open_qs.order_by("round__stage__order", "round__number", "group__name", "position")
                         [:ORGANISER_OPEN_FIXTURES])
    open_total = open_qs.count() if len(open_fixtures) == ORGANISER_OPEN_FIXTURES else len(open_fixtures)
    return render(request, "leagues/manage/competition.html", {
        "competition": competition,
        "entrants": competition.entrants.select_related("player", "club").order_by("seed", "name"),
        "form": form,
        "has_fixtures": has_fixtures,
        "can_add_entrants": not has_fixtures or swiss_rounds.late_entry_open(competition),
        "swiss_next": swiss_rounds.next_round(competition) if competition.format == Competition.Format.SWISS else None,
        "open_fixtures": open_fixtures,
        "open_more": open_total - len(open_fixtures),
        "recent": latest_results(fixtures_qs().filter(competition=competition), limit=10),
        "round_form": round_reschedule_form(competition) if has_fixtures else None,
        "overdue": overdue_fixtures(competition=competition),
        "disputed": list(fixtures_qs().filter(competition=competition, status__in=Fixture.OPEN,
                                              reports__status=ResultReport.Status.DISPUTED).distinct()),
        "results_upload_form": ResultsUploadForm(),
        **manage_sign_up_context(competition),
    })


def fixtures_made_sentence(fixtures) -> str:
    """"10 matches and 5 byes are made.": a bye is a round off for one entrant, not a match."""
    byes = sum(1 for f in fixtures if f.status == Fixture.Status.BYE)
    played = len(fixtures) - byes
    if not byes:
        return ngettext("%(count)d match is made.", "%(count)d matches are made.", played) % {"count": played}
    return _("%(matches)s and %(byes)s are made.") % {
        "matches": ngettext("%(count)d match", "%(count)d matches", played) % {"count": played},
        "byes": ngettext("%(count)d bye", "%(count)d byes", byes) % {"count": byes},
    }


@login_required
@require_POST
def generate_fixtures(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _managed_or_403(request, slug)
    seeding = request.POST.get("seeding") or "hand"
    try:
        fixtures = fixtures_generate(competition=competition, seeding=seeding)
    except (ScheduleError, SeedingError) as exc:
        messages.error(request, _("The fixtures cannot be made: %(reason)s.") % {"reason": exc})
    except ResultConflict as exc:  # a Swiss round that cannot be paired now
        messages.error(request, _("The round cannot be paired: %(reason)s.") % {"reason": exc.detail})
    except Busy as exc:
        messages.error(request, capfirst(exc.detail))
    else:
        messages.success(request, fixtures_made_sentence(fixtures))
    return redirect("site:manage-competition", slug=competition.slug)


@login_required
@require_POST
def recompute(request: HttpRequest, slug: str) -> HttpResponse:
    competition = _managed_or_403(request, slug)
    standings_recompute(competition_id=competition.pk, force=True)
    messages.success(request, _("The standings are recomputed."))
    return redirect("site:manage-competition", slug=competition.slug)


@login_required
def withdraw_entrant(request: HttpRequest, slug: str, entrant_id: int) -> HttpResponse:
    """A withdrawal in two steps: the page says what it would make official (a dry run of the
    withdrawal), then the organiser confirms it, with a reason kept in the history."""
    competition = _managed_or_403(request, slug)
    entrant = get_object_or_404(Entrant, pk=entrant_id, competition=competition)
    confirmed = request.method == "POST" and request.POST.get("confirm")
    form = WithdrawForm(request.POST if confirmed else None, entrant=entrant)
    try:
        if confirmed and form.is_valid():
            entrant_withdraw(entrant=entrant, by=request.user, reason=form.cleaned_data["reason"])
            messages.success(request, _("%(entrant)s is withdrawn (%(policy)s).") % {
                "entrant": entrant, "policy": competition.get_withdrawal_policy_display().lower()})
            return redirect("site:manage-competition", slug=competition.slug)
        changes = withdrawal_preview(entrant=entrant)
    except EntrantError as exc:
        messages.error(request, capfirst(str(exc)))
    except (ResultConflict, Busy) as exc:
        messages.error(request, capfirst(exc.detail))
    else:
        return render(request, "leagues/manage/withdraw_confirm.html", {
            "competition": competition, "entrant": entrant, "form": form, "changes": changes})
    return redirect("site:manage-competition", slug=competition.slug)


@login_required
@require_POST
def remove_entrant(request: HttpRequest, slug: str, entrant_id: int) -> HttpResponse:
    competition = _managed_or_403(request, slug)
    entrant = get_object_or_404(Entrant, pk=entrant_id, competition=competition)
    try:
        entrant_remove(entrant=entrant)
    except EntrantError as exc:
        messages.error(request, capfirst(str(exc)))
    except Busy as exc:
        messages.error(request, capfirst(exc.detail))
    else:
        messages.success(request, _("%(entrant)s is removed.") % {"entrant": entrant})
    return redirect("site:manage-competition", slug=competition.slug)

"""The organisers' tools on a competition as a whole, from the site:

- ``/manage/<slug>/import-results/``: a results file (CSV or XLSX, as ``manage.py
  import_results`` and the exports), previewed first (what each row becomes, what becomes
  official, the standings after, or the refusal with its line and column), imported only once
  the organiser confirms. Between the two the file waits in the cache (``UPLOAD_TTL``), so that
  the one confirmed is the one previewed;
- ``/manage/<slug>/entrants/bulk/``: many entrants at once (``leagues.services.entrants_bulk``);
- ``/manage/<slug>/copy/``: the competition copied for its next edition.
"""
from __future__ import annotations

import io
import secrets

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from leagues.models import Club, Competition, validate_first_date
from leagues.permissions import can_create_competition, can_manage_competition
from leagues.services.competition_copy import competition_copy
from leagues.services.competitions import SlugTaken
from leagues.services.entrants_bulk import (
    CSV_COLUMNS,
    BulkRefused,
    entrant_lines_of_csv,
    entrant_lines_of_players,
    entrant_lines_of_text,
    entrants_bulk_add,
    licensed_players,
)
from leagues.services.import_files import ImportFileError
from leagues.services.imports import OPTIONAL, REQUIRED
from leagues.services.locks import Busy
from leagues.services.results_upload import (
    results_preview,
    results_upload_import,
    upload_results_file,
)

UPLOAD_TTL = 3600  # seconds a previewed file waits for its confirmation
CSV_MAX_BYTES = 1024 * 1024  # an entrants CSV


class ResultsUploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Results file (CSV or XLSX)"))
    update = forms.BooleanField(required=False, label=gettext_lazy(
        "A row for a pairing that has a result corrects it"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # the columns are the file's own names, never translated
        self.fields["file"].help_text = _(
            "The columns of the results import: %(required)s, and optionally %(optional)s. A results export, "
            "corrected in a spreadsheet, is one.") % {"required": ", ".join(REQUIRED), "optional": ", ".join(OPTIONAL)}


def _managed(request: HttpRequest, slug: str) -> Competition:
    competition = get_object_or_404(Competition, slug=slug)
    if not can_manage_competition(request.user, competition):
        raise PermissionDenied(_("You do not organise this competition."))
    return competition


def _upload_key(competition: Competition, token: str) -> str:
    return f"results-upload:{competition.pk}:{token}"


@login_required
@require_POST
def import_results_view(request: HttpRequest, slug: str) -> HttpResponse:
    """POST a file: its preview (nothing saved). POST ``token`` and ``confirm``: the import of
    the file previewed under that token."""
    competition = _managed(request, slug)
    context = {"competition": competition}
    if request.POST.get("confirm"):
        token = (request.POST.get("token") or "")[:64]
        kept = cache.get(_upload_key(competition, token)) if token else None
        if kept is None or kept.get("user") != request.user.pk:
            messages.error(request, _("The preview has expired: upload the file again."))
            return redirect("site:manage-competition", slug=slug)
        try:
            summary = results_upload_import(competition=competition, file=upload_results_file(io.BytesIO(kept["bytes"])),
                                            update=kept["update"], by=request.user)
        except ImportFileError as exc:
            context.update(error=exc, name=kept["name"])
            return render(request, "leagues/manage/import_preview.html", context, status=400)
        except Busy as exc:
            messages.error(request, capfirst(exc.detail))
            return redirect("site:manage-competition", slug=slug)
        cache.delete(_upload_key(competition, token))
        messages.success(request, _("%(count)s results are imported from %(file)s; %(entrants)s new entrants.") % {
            "count": summary.results, "file": kept["name"], "entrants": summary.entrants_created})
        return redirect("site:manage-competition", slug=slug)

    form = ResultsUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
        return redirect("site:manage-competition", slug=slug)
    upload, update = form.cleaned_data["file"], form.cleaned_data["update"]
    context.update(name=upload.name, update=update)
    try:
        file = upload_results_file(upload)
        preview = results_preview(competition=competition, file=file, update=update)
    except ImportFileError as exc:
        context["error"] = exc
        return render(request, "leagues/manage/import_preview.html", context, status=400)
    upload.seek(0)
    token = secrets.token_urlsafe(16)
    cache.set(_upload_key(competition, token), {"bytes": upload.read(), "name": upload.name, "update": update,
                                                "user": request.user.pk}, UPLOAD_TTL)
    context.update(preview=preview, token=token)
    return render(request, "leagues/manage/import_preview.html", context)


# --- Entrants in bulk ---------------------------------------------------------------------------

PICK_LIMIT = 200  # players a pick list shows at once (narrow it by club or search)


@login_required
def entrants_bulk_view(request: HttpRequest, slug: str) -> HttpResponse:
    """GET: the three ways (pick licensed players by club or search, paste a list, upload a
    CSV). POST ``how`` = ``pick`` (``players``), ``paste`` (``text``) or ``csv`` (``file``):
    all added, or every refused line shown and none added."""
    competition = _managed(request, slug)
    club = Club.objects.filter(slug=request.GET.get("club", "")).first()
    query = request.GET.get("q", "").strip()[:80]
    errors: list[tuple[int | None, str]] = []
    how = request.POST.get("how", "")
    if request.method == "POST":
        try:
            if how == "pick":
                ids = [int(v) for v in request.POST.getlist("players") if v.isdigit() and len(v) < 12]
                lines = entrant_lines_of_players(ids)
            elif how == "paste":
                lines = entrant_lines_of_text(request.POST.get("text", "")[:200_000])
            elif how == "csv" and request.FILES.get("file"):
                upload = request.FILES["file"]
                if upload.size > CSV_MAX_BYTES:
                    raise BulkRefused([(None, _("the file is larger than %(max)s bytes") % {"max": CSV_MAX_BYTES})])
                lines = entrant_lines_of_csv(upload.read())
            else:
                raise BulkRefused([(None, _("choose players, paste a list or choose a file"))])
            made = entrants_bulk_add(competition=competition, lines=lines)
        except BulkRefused as exc:
            errors = exc.errors
        except Busy as exc:
            errors = [(None, capfirst(exc.detail))]
        else:
            messages.success(request, ngettext("%(count)d entrant is entered.", "%(count)d entrants are entered.",
                                               len(made)) % {"count": len(made)})
            return redirect("site:manage-competition", slug=slug)
    players = licensed_players(club=club, query=query, exclude=competition) if (club or query) else None
    return render(request, "leagues/manage/entrants_bulk.html", {
        "csv_columns": ", ".join(CSV_COLUMNS),
        "competition": competition, "clubs": Club.objects.order_by("name"), "club": club, "query": query,
        "players": list(players[:PICK_LIMIT]) if players is not None else None, "pick_limit": PICK_LIMIT,
        "errors": [(line, capfirst(detail)) for line, detail in errors], "how": how,
        "text": request.POST.get("text", "") if how == "paste" else "",
    })


# --- Copy -----------------------------------------------------------------------------------------


class CompetitionCopyForm(forms.Form):
    name = forms.CharField(max_length=Competition._meta.get_field("name").max_length, label=gettext_lazy("Name"))
    slug = forms.SlugField(max_length=80, required=False, label=gettext_lazy("Slug"), help_text=gettext_lazy(
        "The address of the competition's page; leave empty to make one from the name."))
    first_date = forms.DateField(required=False, label=gettext_lazy("First date"),
                                 widget=forms.DateInput(attrs={"type": "date"}), validators=[validate_first_date])
    entrants = forms.BooleanField(required=False, label=gettext_lazy("Copy the entrants too"))


@login_required
def competition_copy_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The copy's name, address, first date and whether its entrants come along; POST makes it."""
    competition = _managed(request, slug)
    if not can_create_competition(request.user):
        raise PermissionDenied(_("Creating a competition needs the organiser permission."))
    form = CompetitionCopyForm(request.POST if request.method == "POST" else None,
                               initial={"name": competition.name, "first_date": competition.first_date})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            copy = competition_copy(competition=competition, name=data["name"], slug=data["slug"],
                                    first_date=data["first_date"], entrants=data["entrants"], by=request.user)
        except SlugTaken as exc:
            form.add_error("slug", str(exc))
        else:
            messages.success(request, _("%(copy)s is made from %(competition)s: the same settings, no results.")
                             % {"copy": copy.name, "competition": competition.name})
            return redirect("site:manage-competition", slug=copy.slug)
    return render(request, "leagues/manage/competition_copy.html", {"competition": competition, "form": form})

"""The inbox, the preferences, and the unsubscribe link of every e-mail (no sign-in needed:
the link carries a signed token; a GET shows what it will do, the POST does it, so a mail
scanner that follows links unsubscribes nobody; mail clients post the one-click header)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from leagues.notifications.forms import PreferencesForm
from leagues.notifications.models import Kind, Notification
from leagues.notifications.services import (
    ALL,
    choices_of,
    mark_read,
    preferences_set,
    unsubscribe,
    unsubscribe_read,
)


@login_required
def inbox(request: HttpRequest) -> HttpResponse:
    rows = Notification.objects.filter(user=request.user, in_inbox=True).order_by("-created_at", "-pk")
    page = Paginator(rows, 30).get_page(request.GET.get("page"))
    return render(request, "notifications/inbox.html", {"page": page})


@login_required
@require_POST
def read(request: HttpRequest, pk: int) -> HttpResponse:
    notification = get_object_or_404(Notification, pk=pk, user=request.user)
    mark_read(user=request.user, ids=[notification.pk])
    if notification.url and url_has_allowed_host_and_scheme(notification.url, allowed_hosts={request.get_host()}):
        return redirect(notification.url)
    return redirect("notifications:inbox")


@login_required
@require_POST
def read_all(request: HttpRequest) -> HttpResponse:
    mark_read(user=request.user)
    return redirect("notifications:inbox")


@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    form = PreferencesForm(request.POST or None, choices=choices_of(request.user))
    if request.method == "POST" and form.is_valid():
        preferences_set(user=request.user, choices=form.choices())
        messages.success(request, _("Your choices are saved."))
        return redirect("notifications:preferences")
    return render(request, "notifications/preferences.html", {"form": form, "has_email": bool(request.user.email)})


@csrf_exempt  # the signed token is the proof; mail clients post here without a session (RFC 8058)
def unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    found = unsubscribe_read(token)
    user = get_user_model().objects.filter(pk=found[0]).first() if found else None
    if user is None:
        return render(request, "notifications/unsubscribe.html", {"invalid": True}, status=404)
    kind = found[1]
    label = _("every e-mail") if kind == ALL else Kind(kind).label
    if request.method == "POST":
        unsubscribe(user=user, kind=kind)
        return render(request, "notifications/unsubscribe.html", {"done": True, "label": label})
    return render(request, "notifications/unsubscribe.html", {"label": label, "token": token})

"""The inbox's pages and the e-mails' unsubscribe links."""
from django.urls import path

import config.converters  # noqa: F401  (registers <id:...>)

from . import views

app_name = "notifications"
urlpatterns = [
    path("inbox/", views.inbox, name="inbox"),
    path("inbox/read-all/", views.read_all, name="read-all"),
    path("inbox/<id:pk>/read/", views.read, name="read"),
    path("inbox/settings/", views.preferences, name="preferences"),
    path("unsubscribe/<str:token>/", views.unsubscribe_view, name="unsubscribe"),
]

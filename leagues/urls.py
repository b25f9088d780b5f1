"""The site's pages: fans read, organisers run their competitions."""
from django.urls import path

from . import views

app_name = "site"
urlpatterns = [
    path("", views.home, name="home"),
]

"""A URLconf for tests/config/test_headers.py: one embeddable page, one ordinary page."""
from django.http import HttpResponse
from django.urls import path

from config.headers import embeddable


def ordinary(request):
    return HttpResponse("<p>ordinary</p>")


@embeddable
def widget(request):
    return HttpResponse("<p>a widget</p>")


urlpatterns = [path("ordinary/", ordinary), path("widget/", widget)]

"""Factories for the registry and competitions."""
import factory
from django.contrib.auth import get_user_model

from leagues.models import Club, Competition, Entrant, Player, Season


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    name = factory.Sequence(lambda n: f"Club {n}")
    slug = factory.Sequence(lambda n: f"club-{n}")


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    first_name = factory.Sequence(lambda n: f"First{n}")
    last_name = factory.Sequence(lambda n: f"Last{n}")
    licence_number = factory.Sequence(lambda n: f"LIC-{n:05d}")


class SeasonFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Season

    name = factory.Sequence(lambda n: f"Season {n}")
    slug = factory.Sequence(lambda n: f"season-{n}")
    start_date = factory.Faker("date_between", start_date="-1y", end_date="-200d")
    end_date = factory.Faker("date_between", start_date="+10d", end_date="+1y")


class CompetitionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Competition

    name = factory.Sequence(lambda n: f"Competition {n}")
    slug = factory.Sequence(lambda n: f"competition-{n}")
    lots_seed = 12345


def competition_with_entrants(n: int, **kwargs) -> Competition:
    """A competition with entrants "E1".."En", seeded 1..n."""
    competition = CompetitionFactory(**kwargs)
    for i in range(1, n + 1):
        Entrant.objects.create(competition=competition, name=f"E{i}", seed=i)
    return competition

from importlib import import_module

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        # Celery finds tasks by name: register this app's in every process (web, worker, beat),
        # not only where a worker's autodiscovery runs.
        import_module(f"{self.name}.tasks")

from importlib import import_module

from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    name = "leagues"
    verbose_name = "Federation and competitions"

    def ready(self) -> None:
        # Celery finds tasks by name: register this app's in every process (web, worker, beat),
        # not only where a worker's autodiscovery runs.
        import_module(f"{self.name}.tasks")
        import_module(f"{self.name}.pagecache")  # what makes a cached page stale: its signals

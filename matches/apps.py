from importlib import import_module

from django.apps import AppConfig
from django.db.models.signals import post_save

from matches.services import live


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        # Celery finds tasks by name: register this app's in every process (web, worker, beat),
        # not only where a worker's autodiscovery runs.
        import_module(f"{self.name}.tasks")
        # every save of a match tells the web processes pushing it to watchers
        post_save.connect(live.match_saved, sender=self.get_model("Match"), dispatch_uid="matches.live")

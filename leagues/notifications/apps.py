from importlib import import_module

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leagues.notifications"
    label = "notifications"  # the tables, migrations and task names keep it
    verbose_name = "Notifications"

    def ready(self) -> None:
        # Celery finds tasks by name: register this app's in every process (web, worker, beat).
        import_module(f"{self.name}.tasks")

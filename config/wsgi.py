import os

from django.core.wsgi import get_wsgi_application

from config.boot import BOOT_ERROR, settings_or_exit

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
settings_or_exit(exit_code=BOOT_ERROR)  # a wrong setting: one line on stderr, and gunicorn stops
application = get_wsgi_application()

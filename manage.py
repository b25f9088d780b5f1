#!/usr/bin/env python
"""Django's command-line utility for Botonera."""
import os
import sys

from django.core.management import execute_from_command_line

from config.boot import settings_or_exit


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    settings_or_exit()  # a wrong setting: one line on stderr, exit 1
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

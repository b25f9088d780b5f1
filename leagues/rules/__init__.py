"""The competition logic, pure: standings and their tie-breaks, official results, brackets,
pairings, ratings and the federation ranking's placings. No ORM and no Django here; the one
door to Django is ``i18n`` (gettext for the sentences a person reads). The loading and the
storing halves live in ``leagues.services``."""

"""The site's pages: ``pages`` (competitions, clubs, players, entrants and the organiser's
forms), ``fixtures`` (a fixture, its result and its kick-off), ``year`` (ratings, the ranking,
sign-ups), ``calendars``, ``embeds`` and ``exports`` (the feeds and downloads). Views read
through selectors and write through services."""

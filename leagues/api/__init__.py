"""The REST API of the federation: registry, competitions, fixtures, results and standings."""

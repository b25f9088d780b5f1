"""Computer players: a practice opponent for each rule set, a passive player, and whole matches
played bot against bot (``play_match``). Pure and deterministic given a seed."""
from __future__ import annotations

from .base import PassiveBot, play_match, replay
from .mbs import MbsBot
from .one_touch import OneTouchBot

__all__ = ["MbsBot", "OneTouchBot", "PassiveBot", "play_match", "replay"]

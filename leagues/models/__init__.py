"""The models of leagues, by domain: ``registry`` (clubs, players, seasons), ``competitions``
(competitions to rounds, and their entrants), ``fixtures`` (fixtures, results, history,
standings), ``year`` (ratings, ranking, sign-ups), ``tokens`` and ``signins`` (failed sign-ins
counted per account). Every model is imported from here:
``from leagues.models import Fixture``."""
from matches.status import InvalidTransition

from .competitions import (
    DAYS_BETWEEN_ROUNDS,
    FIRST_DATE_MAX,
    FIRST_DATE_MIN,
    FIXED_AFTER_DRAW,
    MATCH_SETTINGS,
    TEAM_FIXED_AFTER_DRAW,
    Competition,
    Entrant,
    EntrantKind,
    Group,
    Round,
    SeedingMethod,
    Stage,
    TiebreakPreset,
    TieDecider,
    Venue,
    aware_in,
    bounds,
    match_settings_errors,
    new_lots_seed,
    validate_first_date,
    validate_time_zone,
)
from .fixtures import Fixture, FixtureChange, Outcome, Result, Side, Standing
from .registry import (
    Club,
    ClubMembership,
    Player,
    Season,
    is_printable_text,
    validate_printable,
)
from .reports import (
    KickoffProposal,
    ResultReport,
)
from .requests import (
    ResultRequest,
)
from .signins import (
    AccountLock,
    SignInFailure,
)
from .teams import (
    SquadMember,
)
from .tokens import (
    ApiToken,
)
from .year import (
    Placing,
    PlayerRating,
    RankingScale,
    RankingTier,
    RatingBasis,
    RatingRun,
    Registration,
    SignUp,
)

__all__ = [
    "AccountLock",
    "ApiToken",
    "Club",
    "ClubMembership",
    "Competition",
    "DAYS_BETWEEN_ROUNDS",
    "Entrant",
    "EntrantKind",
    "FIRST_DATE_MAX",
    "FIRST_DATE_MIN",
    "FIXED_AFTER_DRAW",
    "Fixture",
    "FixtureChange",
    "Group",
    "InvalidTransition",
    "KickoffProposal",
    "MATCH_SETTINGS",
    "Outcome",
    "Placing",
    "Player",
    "PlayerRating",
    "RankingScale",
    "RankingTier",
    "RatingBasis",
    "RatingRun",
    "Registration",
    "Result",
    "ResultReport",
    "ResultRequest",
    "Round",
    "Season",
    "SeedingMethod",
    "Side",
    "SignInFailure",
    "SignUp",
    "SquadMember",
    "Stage",
    "Standing",
    "TEAM_FIXED_AFTER_DRAW",
    "TieDecider",
    "TiebreakPreset",
    "Venue",
    "aware_in",
    "bounds",
    "is_printable_text",
    "match_settings_errors",
    "new_lots_seed",
    "validate_first_date",
    "validate_printable",
    "validate_time_zone",
]

"""
The catalog's data: releases, the features they announce, the links that document them, the
areas features are grouped in, the tracks that follow one capability across releases, what a
release runs on and pairs with, and its upgrade notes.

This package holds the schema and its rules (fields, constraints, natural keys). Read rules
live on the QuerySets (``releases/managers/``); every write is stamped, recorded and published
through one path (``writes.py``); operations on tracks live in ``tracks.py``.
"""

from releases.classification import FeatureKind, Stability  # read from here too
from releases.models.base import (
    FEATURES_NEWEST_FIRST,
    MAX_POSITION,
    NEWEST_FIRST,
    ClaimStatus,
    FromPost,
    LinkKind,
    LinkStatus,
    StageSource,
    Timestamped,
    history,
    search_column,
    stability_rank_expression,
    validate_version,
)
from releases.models.catalog import (
    Area,
    AreaAlias,
    Release,
    Track,
)
from releases.models.compat import (
    DEFAULT_VARIANT,
    PLATFORM_PARTS,
    Companion,
    Evidence,
    Library,
    PatchRelease,
    ScheduleDate,
    ScheduleKind,
    Support,
    SupportKind,
    SupportLevel,
    Wheel,
)
from releases.models.features import (
    Feature,
    Link,
    StageClaim,
)
from releases.models.notifications import (
    EmailDigest,
    EmailSubscription,
    Webhook,
    WebhookDelivery,
)
from releases.models.public import (
    CatalogRevision,
    ChangeTopic,
    PublicChange,
    PublicLogHead,
    PublicObject,
)
from releases.models.upgrades import (
    UpgradeAPI,
    UpgradeKind,
    UpgradeNote,
)
from releases.models.watching import (
    BlogAnnouncement,
    BlogFeed,
    IndexPage,
    IndexSync,
)

__all__ = [
    "FeatureKind",
    "Stability",
    "StageSource",
    "ClaimStatus",
    "stability_rank_expression",
    "LinkStatus",
    "LinkKind",
    "validate_version",
    "NEWEST_FIRST",
    "MAX_POSITION",
    "FEATURES_NEWEST_FIRST",
    "search_column",
    "history",
    "Timestamped",
    "FromPost",
    "Release",
    "Area",
    "AreaAlias",
    "Track",
    "Feature",
    "Link",
    "StageClaim",
    "Support",
    "SupportKind",
    "SupportLevel",
    "PatchRelease",
    "Companion",
    "Library",
    "ScheduleDate",
    "ScheduleKind",
    "UpgradeNote",
    "UpgradeKind",
    "UpgradeAPI",
    "PublicObject",
    "PublicChange",
    "CatalogRevision",
    "ChangeTopic",
    "EmailDigest",
    "EmailSubscription",
    "Webhook",
    "WebhookDelivery",
    "PublicLogHead",
    "BlogFeed",
    "BlogAnnouncement",
    "Wheel",
    "Evidence",
    "DEFAULT_VARIANT",
    "PLATFORM_PARTS",
    "IndexPage",
    "IndexSync",
]

"""
Read rules of the catalog: the QuerySets and the managers built from them, one module per part
of the catalog. ``catalog`` holds the base (``CatalogQuerySet``, whose bulk writes go through
the one write path) and the releases, areas, tracks, features, links and claims; ``rows`` what
a release runs on and pairs with; ``upgrades`` its upgrade notes.
"""

from releases.managers.catalog import (
    AreaAliasManager,
    AreaManager,
    CatalogQuerySet,
    FeatureManager,
    LinkManager,
    ReleaseManager,
    StageClaimManager,
    TrackManager,
    count_of,
    counted,
    model,
    version_bound,
)
from releases.managers.rows import (
    CompanionManager,
    PatchReleaseManager,
    ReleaseRowQuerySet,
    ScheduleDateManager,
    SupportManager,
    WheelManager,
)
from releases.managers.upgrades import (
    KIND_COUNTS,
    UpgradeAPIManager,
    UpgradeAPIQuerySet,
    UpgradeNoteManager,
    UpgradeNoteQuerySet,
    api_prefix,
    previous_release,
    upgrading_annotations,
)

__all__ = [
    "CatalogQuerySet",
    "count_of",
    "counted",
    "model",
    "version_bound",
    "ReleaseManager",
    "AreaManager",
    "AreaAliasManager",
    "TrackManager",
    "FeatureManager",
    "LinkManager",
    "StageClaimManager",
    "ReleaseRowQuerySet",
    "SupportManager",
    "WheelManager",
    "PatchReleaseManager",
    "CompanionManager",
    "ScheduleDateManager",
    "UpgradeNoteQuerySet",
    "UpgradeNoteManager",
    "UpgradeAPIQuerySet",
    "UpgradeAPIManager",
    "api_prefix",
    "upgrading_annotations",
    "previous_release",
    "KIND_COUNTS",
]

"""
PyTorch's classification of features as the catalog stores it: the stages (Stable, Beta,
Prototype, and API-Unstable from 2.8), how they rank, and how a track's stage moved between two
appearances. Plain choices and functions: models, QuerySets and pages all read them here.
"""

from django.db import models

# "No stage", where a word must stand for it (a query value, a JSON key, a CSS class, a badge):
# a feature without a stage stores "" (releases.models.Feature.stability).
NO_STAGE = "none"


class Stability(models.TextChoices):
    """
    PyTorch's feature classification: Stable, Beta and Prototype from 1.6 to 2.7; from 2.8 on
    API-Stable (``stable``) and API-Unstable (``unstable``, RFC pytorch/pytorch#152134).
    """

    STABLE = "stable", "Stable"
    BETA = "beta", "Beta"
    PROTOTYPE = "prototype", "Prototype"
    UNSTABLE = "unstable", "Unstable"


class FeatureKind(models.TextChoices):
    """
    What a release's entry announces: a capability, that one is deprecated or removed, or a
    notice (a "Non-Feature Updates" item: a release cadence, a new default CUDA, a pinned
    Triton). A notice is shown with its release but is no feature: it is never counted, charted
    or compared as one, and belongs to no track.
    """

    FEATURE = "feature", "Feature"
    DEPRECATION = "deprecation", "Deprecation"
    NOTICE = "notice", "Notice"


# Higher is more mature; a feature with no stability has no rank and is never "promoted".
# API-Unstable stands below stable, beside beta: what the old scheme called beta or prototype
# is API-Unstable in the new one, so a move between them is a relabel (``stage_change``).
STABILITY_RANKS = {
    Stability.PROTOTYPE: 1,
    Stability.BETA: 2,
    Stability.UNSTABLE: 2,
    Stability.STABLE: 3,
}
# The stages of the scheme before 2.8 that API-Unstable renamed rather than ranked.
RELABELLED_AS_UNSTABLE = frozenset({Stability.BETA, Stability.PROTOTYPE})


class StageChange(models.TextChoices):
    """How a track's stage moved between two appearances."""

    PROMOTED = "promoted", "Promoted"
    DEMOTED = "demoted", "Demoted"
    RELABELLED = "relabelled", "Relabelled"
    SAME = "same", "Same stage"


def stage_change(before, after):
    """
    The move from stage ``before`` to ``after``, or None where either is unknown. Beta or
    prototype to API-Unstable (or back) is a relabel, neither a promotion nor a demotion.
    """
    if not before or not after:
        return None
    if before == after:
        return StageChange.SAME
    pair = {before, after}
    if Stability.UNSTABLE in pair and pair & RELABELLED_AS_UNSTABLE:
        return StageChange.RELABELLED
    rose = STABILITY_RANKS[after] > STABILITY_RANKS[before]
    return StageChange.PROMOTED if rose else StageChange.DEMOTED


def stage_moves(stages):
    """
    How a track's stage moved at each of its appearances (``stages``: their stabilities, oldest
    first): the change from the last stage stated before it, or None for the first stated stage
    and for an appearance with no stage, which changes nothing. The one rule for "when did this
    track change", read by the track page, the matrix, compare and the feeds alike: FlexAttention,
    prototype in 2.7, unstable in 2.11, no stage in 2.12, unstable in 2.13, was relabelled in
    2.11 only.
    """
    held, moves = None, []
    for stage in stages:
        moves.append(stage_change(held, stage) if stage else None)
        held = stage or held
    return moves


class ReleaseStatus(models.TextChoices):
    """Where a release stands (annotated by ReleaseQuerySet.with_status)."""

    PLANNED = "planned", "Planned: known from the schedule, not out yet"
    LATEST = "latest", "Latest: the newest minor out, the one PyTorch patches"
    SUPERSEDED = "superseded", "Superseded: an older minor"

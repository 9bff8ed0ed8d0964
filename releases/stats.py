"""
What the history of stages adds up to: each release's features by stage, a track's stage as of
a version and since when, how many releases a track took to become stable, and which tracks
have kept the same pre-stable stage for many releases.

A track's stage as of a version is the stability of its latest published appearance at or
before it (``TrackQuerySet.with_stage``); its stage holds "since" the first appearance of the
uninterrupted run of that stage (torch.fft: beta in 1.7, stable in 1.8 and after: stable since
1.8). Releases are counted among the published ones, in version order: a track first seen in
1.7 and stable in 1.8 took one release. The computations read a track's ``appearances``, as
``TrackQuerySet.for_api`` prefetches them (oldest first), so they cost no query of their own.
"""

from django.db.models import Count, Q

from releases.classification import NO_STAGE
from releases.managers import counted
from releases.models import Release, Stability, Track

# The counts each release has, one for each stage and one for features given none.
STAGE_KEYS = [*Stability.values, NO_STAGE]
PRE_STABLE = {Stability.PROTOTYPE, Stability.BETA, Stability.UNSTABLE}
# /graduation/ lists the tracks kept at prototype or beta for this many releases or more,
# unless its query says otherwise.
DEFAULT_STUCK_FOR = 10


def with_stage_counts(releases):
    """
    Annotate each of ``releases`` with its public features at each stage, in the same query:
    ``stable_count``, ``beta_count``, ``prototype_count``, ``unstable_count`` and
    ``none_count``.
    """
    public = Q(features__needs_approval=False) & counted("features__")
    return releases.annotate(
        **{
            f"{key}_count": Count(
                "features",
                filter=public & Q(features__stability="" if key == NO_STAGE else key),
            )
            for key in STAGE_KEYS
        }
    )


def release_stats():
    """Published releases, oldest first, each with its features' counts by stage: one query."""
    releases = Release.objects.announcing().with_feature_count()
    return with_stage_counts(releases).order_by("version_key")


def release_positions():
    """{version: its place among the published releases, oldest first}: one query."""
    versions = Release.objects.announcing().oldest_first().values_list("version", flat=True)
    return {version: index for index, version in enumerate(versions)}


def run_start(appearances):
    """
    The appearance where the stage of the last of ``appearances`` began to hold. An appearance
    with no stage between two of that stage moves nothing (classification.stage_moves): the
    stage held through it (FlexAttention, unstable since 2.11 across 2.12's unstaged item).
    """
    if not appearances:
        return None
    start = appearances[-1]
    for appearance in reversed(appearances):
        if start.stability and not appearance.stability:
            continue
        if appearance.stability != start.stability:
            break
        start = appearance
    return start


def first_stable(appearances):
    """The first of ``appearances`` at stable, or None."""
    return next((a for a in appearances if a.stability == Stability.STABLE), None)


class Standing:
    """
    A track's history in numbers, read from its prefetched ``appearances`` (up to a version):
    its stage, since when, and (with the published releases' ``positions``) how many releases
    it took to become stable and how many its stage has held, up to the newest release.
    """

    def __init__(self, track, positions):
        appearances = track.appearances
        self.track = track
        self.latest = appearances[-1] if appearances else None
        self.first = appearances[0] if appearances else None
        self.start = run_start(appearances)
        self.stable = first_stable(appearances)
        self.positions = positions

    @property
    def stage(self):
        return self.latest.stability if self.latest else ""

    @property
    def since(self):
        return self.start.release.version if self.start else None

    @property
    def stable_in(self):
        return self.stable.release.version if self.stable else None

    @property
    def releases_to_stable(self):
        """Releases from the first appearance to the first stable one (0: stable at once)."""
        if self.stable is None:
            return None
        positions = self.positions
        return positions[self.stable.release.version] - positions[self.first.release.version]

    @property
    def releases_at_stage(self):
        """Releases the stage has held, from the one that set it to the newest, both counted."""
        if self.start is None or not self.positions:
            return None
        return len(self.positions) - self.positions[self.start.release.version]

    @property
    def is_pre_stable(self):
        return self.stage in PRE_STABLE


def standings(tracks, positions=None):
    """A Standing for each of ``tracks`` (read through ``for_api``)."""
    positions = release_positions() if positions is None else positions
    return [Standing(track, positions) for track in tracks]


def stuck_track_ids(stuck_for, positions=None):
    """
    The ids of the published tracks at prototype or beta whose stage has held for
    ``stuck_for`` releases or more, up to the newest: three queries, whatever their number.
    """
    return [
        standing.track.pk
        for standing in standings(Track.objects.for_api(), positions)
        if standing.is_pre_stable and standing.releases_at_stage >= stuck_for
    ]


def track_badge(slug):
    """
    (name, stage, since) of the published track ``slug`` as it stands now, or None if the
    public knows no such track: two queries.
    """
    track = Track.objects.for_api().filter(slug=slug).first()
    if track is None:
        return None
    start = run_start(track.appearances)
    return track.name, track.stage, start.release.version

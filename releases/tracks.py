"""
Operations on tracks: merging features into one, splitting them off, and comparing versions.

Each write here goes through the QuerySets' write path, so merges and splits are stamped,
recorded in the history (by whom, with what reason) and published like any other change.
"""

from django.db import transaction

from releases import versions, writes
from releases.classification import StageChange, stage_change, stage_moves
from releases.models import Feature, Track, UpgradeNote


class CannotMerge(ValueError):
    """A merge would make a track appear twice in one release; the message says where."""


def merge_conflicts(features, into):
    """The releases in which ``features`` and ``into`` would give the track two appearances."""
    moving = [feature for feature in features if feature.track_id != into.pk]
    seen = {}
    for feature in Feature.objects.filter(track=into).select_related("release"):
        seen.setdefault(feature.release.version, []).append(feature.title)
    for feature in moving:
        seen.setdefault(feature.release.version, []).append(feature.title)
    return {version: titles for version, titles in seen.items() if len(titles) > 1}


def merge(features, into):
    """
    Move ``features`` into the track ``into``; delete the tracks they leave empty, and return
    those. Refused (CannotMerge) if the track would then appear twice in one release, and
    (writes.StaleEdit) if one of ``features`` was changed since it was read.
    """
    features = list(features)
    conflicts = merge_conflicts(features, into)
    if conflicts:
        where = "; ".join(
            f"{version}: {' and '.join(titles)}" for version, titles in conflicts.items()
        )
        raise CannotMerge(
            f"{into} would appear twice in one release ({where}). A track appears once per "
            "release: merge features of different releases, or keep them apart."
        )
    left = {feature.track_id for feature in features} - {into.pk}
    with transaction.atomic():
        writes.check_versions(features)  # as read, under a lock: a concurrent edit refuses
        Feature.objects.filter(pk__in=[feature.pk for feature in features]).update(track=into)
        # The upgrade notes about a track merged away are about the track it joined.
        emptied = Track.objects.filter(pk__in=left).orphaned()
        UpgradeNote.objects.filter(track__in=emptied).update(track=into)
        return delete_emptied(left)


def split(features):
    """
    Give each of ``features`` a track of its own; delete the tracks left empty (an upgrade note
    about one loses its track: which part it concerns is the editor's to say). Each save
    checks the version the feature was read at (writes.StaleEdit if it moved on).
    """
    left = set()
    with transaction.atomic():
        for feature in features:
            left.add(feature.track_id)
            feature.track = Track.objects.create_for(feature)
            feature.save(update_fields=["track"])
        return delete_emptied(left)


def delete_emptied(track_ids):
    """Delete those of ``track_ids`` no feature belongs to any more; return them."""
    emptied = list(Track.objects.filter(pk__in=track_ids).orphaned())
    if emptied:
        Track.objects.filter(pk__in=[track.pk for track in emptied]).delete()
    return emptied


def upgrade_between(start, end):
    """
    What upgrading from version ``start`` to ``end`` brings, track by track: tracks first
    seen after ``start`` (added, with their stage at ``end`` and their first release), tracks
    whose stage rose or fell (with the stage before and after, and the release of the last
    change), tracks relabelled from the old scheme to the new (beta or prototype to
    API-Unstable), and how many stayed as they were. Each added track names the track it
    succeeds, if any.
    Two queries, whatever the size of the catalog.
    """
    start_version = versions.Version.parse(start)
    added, promoted, demoted, relabelled, unchanged = [], [], [], [], 0
    for track in Track.objects.for_api(as_of=end):
        appearances = track.appearances
        earlier = [a for a in appearances if a.release.parsed_version <= start_version]
        if not earlier:
            added.append({"track": track, "appearance": appearances[0]})
            continue
        # The stages stated, before and at the end: an appearance with no stage changes none.
        before = next((a for a in reversed(earlier) if a.stability), earlier[-1])
        after = next((a for a in reversed(appearances) if a.stability), appearances[-1])
        change = stage_change(before.stability, after.stability)
        if change in (None, StageChange.SAME):
            unchanged += 1
            continue
        # Where it last moved: the same rule as the track page and the matrix (stage_moves).
        moves = stage_moves([a.stability for a in appearances])
        changed_in = next(
            (a for a, move in zip(reversed(appearances), reversed(moves), strict=True)
             if move not in (None, StageChange.SAME)),
            before,
        )  # fmt: skip
        moved = {"track": track, "before": before, "after": after, "changed_in": changed_in}
        {
            StageChange.PROMOTED: promoted,
            StageChange.DEMOTED: demoted,
            StageChange.RELABELLED: relabelled,
        }[change].append(moved)
    return {
        "added": added,
        "promoted": promoted,
        "demoted": demoted,
        "relabelled": relabelled,
        "unchanged": unchanged,
    }

"""
Stage claims, once found: which track a claim names, and an editor's accepting or rejecting
it. An accepted claim is an appearance of its track at the claimed stage in its release, so
tracks, promotions, compare and the feeds read it like any other appearance; rejecting an
accepted claim takes that appearance back.

Every write goes through the catalog's write path, in one transaction per decision.
"""

from django.db import transaction
from django.db.models import Max

from releases.models import MAX_POSITION, ClaimStatus, Feature, StageClaim, StageSource, Track
from releases.names import names_match
from releases.slugs import slugify, unique_slug

# A claim names a track when its subject matches the track's name or one of its
# appearances' titles this well, and no other track as well.
TRACK_MATCH = 0.5


class CannotDecide(ValueError):
    """A claim cannot be accepted or rejected as it is; the message says why."""


class TrackNames:
    """Every track's names (its own and its appearances' titles), to find the one a claim names."""

    def __init__(self, exclude_release=None):
        self.names, self.slugs = {}, {}
        for track_id, name, slug in Track.objects.values_list("pk", "name", "slug"):
            self.names.setdefault(track_id, set()).add(name)
            self.slugs[track_id] = slug
        features = Feature.objects.all()
        if exclude_release is not None and exclude_release.pk:
            features = features.exclude(release=exclude_release)
        for track_id, title in features.values_list("track_id", "title"):
            self.names.setdefault(track_id, set()).add(title)

    def best(self, subject):
        """The id of the one track ``subject`` names best, or None if none (or two) do."""
        scores = sorted(
            (
                (max(names_match(subject, name) for name in names), track_id)
                for track_id, names in self.names.items()
            ),
            reverse=True,
        )
        if not scores or scores[0][0] < TRACK_MATCH:
            return None
        if len(scores) > 1 and scores[1][0] == scores[0][0]:
            return None  # two tracks fit as well: an editor picks
        return scores[0][1]


def accept(claim):
    """
    Accept ``claim``: its track appears at the claimed stage in its release. The release's
    feature of that track takes the stage (its source becomes the claim) unless it already has
    it; with no such feature, one is added. Refused without a feature or a track to attach to.
    """
    with transaction.atomic():
        claim = StageClaim.objects.select_related("release", "feature", "track").get(pk=claim.pk)
        feature = claim.feature
        if feature is None and claim.track_id is not None:
            feature = claim.release.features.filter(track_id=claim.track_id).first()
        if feature is None:
            if claim.track is None:
                raise CannotDecide(
                    f"'{claim.subject}' ({claim.release.version}, line {claim.line}) names no "
                    "track yet: choose the track it is about, then accept it."
                )
            feature = appearance_for(claim)
        elif feature.stability != claim.stability:
            feature.stability = claim.stability
            feature.stage_source = StageSource.CLAIM
            feature.stage_label = claim.phrase[:40]  # the words of the post that state it
            feature.save()
        claim.feature, claim.track = feature, feature.track
        claim.status = ClaimStatus.ACCEPTED
        claim.save()
        return claim


def appearance_for(claim):
    """A new feature: the claim's track in the claim's release, at the claimed stage."""
    release, track = claim.release, claim.track
    position = (release.features.aggregate(last=Max("position"))["last"] or 0) + 1
    if position > MAX_POSITION:
        raise CannotDecide(f"{release} already holds {MAX_POSITION} features.")
    taken = set(release.features.values_list("slug", flat=True))
    slug = unique_slug(slugify(track.name), taken)
    feature = Feature(
        release=release,
        title=track.name[:200],
        slug=slug,
        stability=claim.stability,
        stage_source=StageSource.CLAIM,
        stage_label=claim.phrase[:40],
        area=track.area,
        track=track,
        position=position,
        # Read from the claim's sentence: that is where the post says it.
        source_post=claim.source_post,
        source_url=claim.source_url,
        source_section=claim.source_section,
        source_line=claim.line,
    )
    feature.save()
    return feature


def reject(claim):
    """
    Reject ``claim``. If it had been accepted, its appearance goes back to what the post's
    tags said: a feature the claim added is deleted (Features › Deleted features recovers
    it), a stage it set returns to the imported one.
    """
    with transaction.atomic():
        claim = StageClaim.objects.select_related("feature").get(pk=claim.pk)
        feature = claim.feature
        if claim.status == ClaimStatus.ACCEPTED and feature is not None:
            if feature.stage_source == StageSource.CLAIM:
                imported = feature.imported_values or {}
                if not imported:
                    claim.feature = None
                    claim.save()
                    feature.delete()
                else:
                    feature.stability = imported.get("stability", "")
                    feature.stage_label = imported.get("stage_label", "")
                    feature.stage_source = imported.get("stage_source") or (
                        StageSource.TAG if feature.stability else ""
                    )
                    feature.save()
        claim.status = ClaimStatus.REJECTED
        claim.save()
        return claim

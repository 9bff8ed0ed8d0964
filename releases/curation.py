"""
Editors' decisions kept as files: what an editor decided about an imported release — each
feature's summary in our own words, its track and area, the corrections of what the importer
read wrong (each with its reason), the stage claims accepted or rejected — applied through the
catalog's write path, as an editor in the admin would make them, recorded in the history as
made by ``curate`` and the file.

``fixtures/curation/`` holds one file per release (``<version>.json``) and the catalog's areas
and tracks (``areas.json``, ``tracks.json``). A release's file may define the tracks it brings
(``tracks``, as in ``tracks.json``), and with ``"create": true`` the release itself, for a
release no post can be imported for (its features are then all ``add`` entries, each with
the ``source`` it was read from). From a checkout of the blog, the fixtures are
rebuilt with ``import_post FOLDER``, ``curate`` and ``export_fixtures`` (README, "Curating a
release"). A decision that names what the catalog does not hold is an error naming the file
and the entry, and nothing of that file is written.
"""

import json
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from releases import publishing, stages, writes
from releases.models import (
    MAX_POSITION,
    Area,
    ClaimStatus,
    Feature,
    FeatureKind,
    Link,
    LinkKind,
    Release,
    StageClaim,
    StageSource,
    Track,
)
from releases.slugs import slugify

CORRECTABLE = ("title", "stability", "stage_label")
RELEASE_FIELDS = (
    "title",
    "summary",
    "announcement_url",
    "release_notes_url",
    "release_date",
    "sources_note",
    "commit_count",
    "contributor_count",
)
# What an editor decides of a feature, with no reason needed (a correction needs one).
DECIDED = ("summary", "kind", "demotion_reason")


class CurationError(Exception):
    """A decision the catalog cannot apply: ``where`` names the file and the entry."""

    def __init__(self, where, message):
        super().__init__(f"{where}: {message}")


@dataclass
class Applied:
    version: str = ""
    summaries: int = 0
    corrections: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    added: list = field(default_factory=list)
    claims: int = 0
    published: bool = False


def read(path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise CurationError(path, f"cannot read: {error}") from None
    except json.JSONDecodeError as error:
        raise CurationError(f"{path}:{error.lineno}", f"not JSON: {error.msg}") from None


def apply_areas(path):
    """``areas.json``: {slug: {name, description}}; creates or renames, never deletes."""
    for slug, values in read(path).items():
        area = Area.objects.filter(slug=slug).first() or Area(slug=slug)
        area.name = values["name"]
        area.description = values.get("description", area.description)
        area.needs_review = False
        save(area, f"{path} area {slug}")


def apply_tracks(path):
    """``tracks.json``: {slug: {name, area, description, succeeds}}; creates or updates."""
    define_tracks(read(path), path)


def define_tracks(tracks, path):
    """
    Create or update tracks, then link each to the track it ``succeeds``: in a second pass,
    so that a successor may be listed before its predecessor.
    """
    for slug, values in tracks.items():
        where = f"{path} track {slug}"
        track = Track.objects.filter(slug=slug).first() or Track(slug=slug)
        track.name = values["name"]
        track.area = find(Area, where, slug=values["area"])
        track.description = values.get("description", "")
        save(track, where)
    for slug, values in tracks.items():
        where = f"{path} track {slug}"
        track = Track.objects.get(slug=slug)
        predecessor = values.get("succeeds")
        track.succeeds = find(Track, where, slug=predecessor) if predecessor else None
        save(track, where)


def is_created(path):
    """Whether a release's file creates the release (``"create": true``)."""
    return read(path).get("create") is True


def create_release(decisions, path):
    """A draft release from the file's ``release`` block, unless the catalog holds it."""
    version = decisions.get("version")
    release = Release.objects.filter(version=version).first()
    if release is None:
        where = f"{path} release"
        values = decisions.get("release", {})
        for name in ("title", "release_date", "announcement_url"):
            if not values.get(name):
                raise CurationError(where, f"a release to create needs its {name!r}")
        release = Release(version=version, title=values["title"])
        save(release, where)
    return release


def apply_release(path, publish=True):
    """One release's decisions (``<version>.json``), in one transaction."""
    decisions = read(path)
    version = decisions.get("version")
    applied = Applied(version=version)
    with transaction.atomic(), writes.acting_as(f"curate {path.name}"):
        if decisions.get("create") is True:
            create_release(decisions, path)
        release = find(Release, f"{path} version", version=version)
        define_tracks(decisions.get("tracks", {}), path)
        values = decisions.get("release", {})
        for name in RELEASE_FIELDS:
            if name in values:
                setattr(release, name, values[name])
        if "highlights" in values:
            release.highlights = "\n".join(values["highlights"])
        save(release, f"{path} release")
        features = {f.slug: f for f in Feature.objects.filter(release=release)}
        for number, entry in enumerate(decisions.get("features", []), start=1):
            where = f"{path} features[{number}] {entry.get('slug') or entry.get('title')!r}"
            slug = entry.get("slug") or (slugify(entry["title"]) if entry.get("add") else None)
            feature = features.get(slug)
            if entry.get("add") and feature is None:
                feature = add_feature(release, entry, where)
                features[feature.slug] = feature
                applied.added.append(feature.title)
                continue
            if entry.get("remove"):
                # Something the importer read that is no feature; a better importer may
                # no longer read it: then there is nothing left to remove.
                reason(entry, where)
                if feature is not None:
                    feature.delete()
                    applied.removed.append(f"{feature.title}: {entry['reason']}")
                continue
            if feature is None:
                raise CurationError(where, f"release {version} has no feature with that slug")
            decide_feature(feature, entry, where, applied)
        follow_features(release, f"{path} claims")
        for number, entry in enumerate(decisions.get("claims", []), start=1):
            where = f"{path} claims[{number}] {entry.get('subject')!r}"
            applied.claims += decide_claim(release, entry, where)
        if publish and not release.is_published:
            release = Release.objects.with_checklist().get(pk=release.pk)
            published, refused = publishing.publish([release])
            if refused:
                raise CurationError(f"{path} release", "cannot be published: no release date")
            applied.published = True
    return applied


def decide_feature(feature, entry, where, applied):
    for name in CORRECTABLE:
        value = entry.get(name) or ""  # no stage, no label: the empty string, as stored
        if name in entry and value != getattr(feature, name):
            reason(entry, where)
            setattr(feature, name, value)
            if name == "stability":
                feature.stage_source = StageSource.EDITOR if entry[name] else ""
            applied.corrections.append(f"{feature.slug}: {name} -> {entry[name]}")
    for name in DECIDED:
        if name in entry:
            setattr(feature, name, entry[name])
    applied.summaries += "summary" in entry
    if "area" in entry:
        feature.area = find(Area, where, slug=entry["area"])
    if "track" in entry:
        feature.track = find(Track, where, slug=entry["track"])
    save(feature, where)
    for number, link in enumerate(entry.get("links", []), start=1):
        reason(entry, where)
        add_link(feature, link, f"{where} links[{number}]")


def add_feature(release, entry, where):
    """A feature the importer did not find, as an editor adds it: with a reason."""
    reason(entry, where)
    position = max(release.features.values_list("position", flat=True), default=0) + 1
    source = entry.get("source") or {}
    feature = Feature(
        release=release,
        title=entry["title"],
        slug=entry.get("slug") or slugify(entry["title"]),
        stability=entry.get("stability") or "",
        # Where the source's own label gives the stage, say so ("section"); else an editor's.
        stage_source=entry.get("stage_source", StageSource.EDITOR)
        if entry.get("stability")
        else "",
        stage_label=entry.get("stage_label", ""),
        kind=entry.get("kind", FeatureKind.FEATURE),
        demotion_reason=entry.get("demotion_reason", ""),
        area=find(Area, where, slug=entry["area"]),
        track=find(Track, where, slug=entry["track"]),
        summary=entry.get("summary", ""),
        position=min(entry.get("position", position), MAX_POSITION),
        source_post=source.get("post", ""),
        source_url=source.get("url", ""),
        source_section=source.get("section", ""),
        source_line=source.get("line"),
    )
    save(feature, where)
    for number, link in enumerate(entry.get("links", []), start=1):
        add_link(feature, link, f"{where} links[{number}]")
    return feature


def add_link(feature, link, where):
    """A link the post gives and the importer missed; ``url`` "" is a promised, missing one."""
    url = link["url"] if isinstance(link, dict) else link
    kind = link.get("kind", LinkKind.OTHER) if isinstance(link, dict) else LinkKind.OTHER
    label = link.get("label", "") if isinstance(link, dict) else ""
    label = label or LinkKind(kind).label
    same = feature.links.filter(url=url)
    if (same.filter(label=label) if not url else same).exists():
        return
    position = max(feature.links.values_list("position", flat=True), default=0) + 1
    save(
        Link(
            feature=feature,
            url=url,
            kind=kind,
            label=label,
            position=position,
        ),
        where,
    )


def follow_features(release, where):
    """
    A claim about a feature is about that feature's track: when an editor moves the feature to
    another track (a merge), the claim follows it rather than keep the track left behind.
    """
    claims = StageClaim.objects.filter(release=release, feature__isnull=False).select_related(
        "feature"
    )
    for claim in claims:
        if claim.track_id != claim.feature.track_id:
            claim.track_id = claim.feature.track_id
            save(claim, f"{where} {claim.subject!r}")


def decide_claim(release, entry, where):
    """
    Accept or reject a claim as the admin's actions do (``releases.stages``): an accepted claim
    is an appearance of its track at the claimed stage, added if the release has none (then
    ``summary`` gives it one); rejecting an accepted claim takes that appearance back.
    """
    status = entry.get("status")
    if status not in (ClaimStatus.ACCEPTED, ClaimStatus.REJECTED):
        raise CurationError(where, "status must be 'accepted' or 'rejected'")
    claim = find_claim(release, entry, where)
    if claim is None:
        if status == ClaimStatus.REJECTED:
            # A sentence the importer misread; a better importer may no longer read it.
            reason(entry, where)
            return False
        raise CurationError(where, f"release {release.version} has no such claim")
    if status == ClaimStatus.REJECTED or "track" in entry:
        reason(entry, where)
    moved = False
    if "track" in entry:
        track = find(Track, where, slug=entry["track"])
        if claim.track_id != track.pk:
            claim.track, moved = track, True
            if claim.feature_id and claim.feature.track_id != track.pk:
                claim.feature = None  # the claim is about another capability than its feature's
            save(claim, where)
    if claim.status == status and not (moved and status == ClaimStatus.ACCEPTED):
        return True
    try:
        claim = (stages.accept if status == ClaimStatus.ACCEPTED else stages.reject)(claim)
    except stages.CannotDecide as error:
        raise CurationError(where, str(error)) from None
    if status == ClaimStatus.ACCEPTED and entry.get("summary") and not claim.feature.summary:
        claim.feature.summary = entry["summary"]
        save(claim.feature, where)
    return True


def find_claim(release, entry, where):
    """
    The claim an entry names: by ``subject`` (and ``line``); failing that, the one claim of
    that ``line`` at that ``stability``, since the sentence and the stage it states identify
    a claim better than the words an importer takes for its subject.
    """
    claims = StageClaim.objects.filter(release=release).select_related("feature")
    named = claims.filter(subject=entry.get("subject"))
    if "line" in entry:
        named = named.filter(line=entry["line"])
    claim = named.first()
    if claim is None and "line" in entry and "stability" in entry:
        same = list(claims.filter(line=entry["line"], stability=entry["stability"])[:2])
        if len(same) > 1:
            raise CurationError(where, f"line {entry['line']} holds several such claims: name one")
        claim = same[0] if same else None
    return claim


def tidy():
    """
    After every release's decisions: delete the tracks no feature belongs to any more (those the
    importer made for features now on a shared track), then the areas the importer proposed that
    nothing uses. Done once at the end, since a track of ``tracks.json`` may first be used by a
    later release than the one being applied.
    """
    tracks, _ = Track.objects.orphaned().delete()
    areas, _ = Area.objects.filter(
        needs_review=True, features__isnull=True, tracks__isnull=True
    ).delete()
    return tracks, areas


def reason(entry, where):
    if not entry.get("reason"):
        raise CurationError(where, "a correction needs its reason ('reason')")


def find(model, where, **lookup):
    try:
        return model.objects.get(**lookup)
    except model.DoesNotExist:
        names = ", ".join(f"{k}={v!r}" for k, v in lookup.items())
        raise CurationError(where, f"no {model._meta.verbose_name} with {names}") from None


def save(obj, where):
    try:
        obj.full_clean(validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        raise CurationError(where, "; ".join(error.messages)) from None
    obj.save()

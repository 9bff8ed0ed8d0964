"""
Map a parsed post onto the catalog: create or update a draft release, its features and links.

Editors own what they curate. The importer remembers what it last wrote for each feature
(``Feature.imported_values``); on a re-import it changes a field only while it still holds
the imported value, and reports every editor's choice it kept instead. It never deletes a
feature or a link, never touches summaries, and never unpublishes a release. Features a post
adds to a release that is already published wait for an editor's approval.

An import happens in two steps, so that readers never wait on it: ``plan()`` reads the catalog
and validates every object the post would write, outside any transaction; ``Plan.apply()``
writes them in one short transaction, through the catalog's write path, recorded as made by
``import_post`` and the post's file. A plan that changes nothing writes nothing.
"""

from django.db import transaction

from releases import writes
from releases.importing.areas import AreaResolver
from releases.importing.differences import (
    differences,
    fingerprint,
    imported_values,
)
from releases.importing.problems import DocumentProblem
from releases.importing.report import (
    ImportReport,
)
from releases.importing.validation import validate as checked
from releases.models import (
    MAX_POSITION,
    ClaimStatus,
    Feature,
    FeatureKind,
    Link,
    Release,
    StageClaim,
    StageSource,
    Track,
)
from releases.slugs import unique_slug
from releases.stages import TrackNames

TRACKED_FIELDS = ("title", "stability", "stage_source", "stage_label", "kind", "area", "position")
# What an import that predates a tracked field would have written for it: a feature imported
# before the importer read stage labels and kinds holds these, and the post may now fill them.
TRACKED_DEFAULTS = {"stage_label": "", "kind": FeatureKind.FEATURE}
# Where each fact was read (provenance): the importer's own, refreshed on every import.
SOURCE_FIELDS = ("source_post", "source_url", "source_section", "source_line")
CLAIM_SOURCE_FIELDS = ("source_post", "source_url", "source_section")


class ImportProblem(DocumentProblem):
    """The post cannot be imported as it is; ``line`` points at the cause in the post."""


def validate(obj, line, exclude=()):
    """Validate like a form would, so that bad data fails with the post's line."""
    checked(obj, line, ImportProblem, labelled, exclude)


def labelled(obj):
    label = getattr(obj, "title", None) or getattr(obj, "label", None) or obj
    return f"{obj._meta.verbose_name} '{label}'"


def find_release(version):
    return Release.objects.of_version(version).first()


def release_values(parsed):
    return {
        "title": parsed.title[:200],
        "release_date": parsed.release_date,
        "announcement_url": parsed.announcement_url,
        "release_notes_url": parsed.release_notes_url,
        "highlights": "\n".join(parsed.highlights),
        "commit_count": parsed.commit_count,
        "contributor_count": parsed.contributor_count,
    }


def import_post(parsed, *, publish=False, release_date=None, dry_run=False, source=""):
    """Import a ParsedPost: plan it, then (unless ``dry_run``) apply it in one transaction."""
    if not parsed.version:
        raise ImportProblem("cannot tell the version from the title; pass --version", 2)
    plan = Plan(parsed, publish=publish, release_date=release_date)
    if not dry_run:
        plan.apply(source)
    return plan.report


def preview(parsed, *, publish=False, release_date=None):
    """
    What importing ``parsed`` would do, writing nothing: the import's report (created,
    changed, kept, claims) and every difference between the post and the catalog's release.
    The admin's import page and ``import_post --dry-run --compare`` both show this.
    """
    report = import_post(parsed, publish=publish, release_date=release_date, dry_run=True)
    return report, differences(parsed, find_release(parsed.version))


class Plan:
    """Everything an import would write, read and validated before any transaction opens."""

    def __init__(self, parsed, *, publish, release_date):
        self.parsed, self.publish, self.release_date = parsed, publish, release_date
        self.make()

    def make(self):
        parsed = self.parsed
        report = self.report = ImportReport(version=parsed.version)
        self.areas = AreaResolver()
        self.new_features, self.new_links, self.changed_features = [], [], []
        self.changed_links, self.changed_claims = [], []
        self.new_tracks = []
        self.taken_track_slugs = set(Track.objects.values_list("slug", flat=True))

        release = self.release = find_release(parsed.version)
        values = release_values(parsed)
        if self.release_date is not None:
            values["release_date"] = self.release_date
        if release is None:
            release = self.release = Release(version=parsed.version, **values)
            report.release_created = True
            report.release_changes = ["all"]
        else:
            for name, value in values.items():
                current = getattr(release, name)
                if current in ("", None) and value not in ("", None):
                    setattr(release, name, value)
                    report.release_changes.append(name)
                elif value not in ("", None) and current != value:
                    report.kept.append(f"release {name}: kept the catalog's value")
        was_published = release.is_published and not report.release_created
        if self.publish and not release.is_published:
            if release.release_date is None:
                raise ImportProblem(
                    f"cannot publish {parsed.version} without a release date: add 'date:' to "
                    "the front matter or pass --date",
                    1,
                )
            release.is_published = True
            report.published_now = True
            report.release_changes.append("is_published")
        if "release_date" in report.release_changes or report.release_created:
            report.dated = release.release_date
        report.published = release.is_published
        validate(release, 1)
        self.post = {
            "source_post": parsed.file_name[:255],
            "source_url": (parsed.post_url or release.announcement_url)[:500],
        }

        if len(parsed.features) > MAX_POSITION:
            raise ImportProblem(
                f"the post announces {len(parsed.features)} features; a release holds at most "
                f"{MAX_POSITION}",
                parsed.features[MAX_POSITION].line,
            )
        existing = {}
        self.features_by_slug = {}
        if release.pk:
            features = release.features.select_related("area").prefetch_related("links")
            existing = {feature.slug: feature for feature in features}
        for parsed_feature in parsed.features:
            area = self.areas.resolve(parsed_feature.area)
            feature = existing.pop(parsed_feature.slug, None)
            if feature is None:
                # New features of a published release wait for an editor, unless whoever
                # imports asked to publish: then they are that person's approval.
                pending = was_published and not self.publish
                feature = self.plan_feature(parsed_feature, area, pending=pending)
                current_links = []
            else:
                self.plan_update(feature, parsed_feature, area)
                current_links = list(feature.links.all())
            self.plan_links(feature, parsed_feature, current_links)
            self.features_by_slug[parsed_feature.slug] = feature
        for area in self.areas.created:
            validate(area, None)
        self.plan_claims(existing)
        report.not_in_post = sorted(
            slug for slug, feature in existing.items() if feature.stage_source != StageSource.CLAIM
        )
        report.new_areas = [area.name for area in self.areas.created]
        self.fingerprint = fingerprint(release)

    def plan_feature(self, parsed_feature, area, *, pending):
        values = imported_values(parsed_feature, area)
        feature = Feature(
            release=self.release,
            slug=parsed_feature.slug,
            title=values["title"],
            stability=values["stability"],
            stage_source=values["stage_source"],
            stage_label=values["stage_label"],
            kind=values["kind"],
            area=area,
            position=values["position"],
            imported_values=values,
            needs_approval=pending,
            **self.source_of(parsed_feature),
        )
        validate(feature, parsed_feature.line, exclude=["release", "area", "track"])
        feature.track = None if feature.is_notice else self.plan_track(feature)
        self.new_features.append(feature)
        self.report.created.append(f"{feature.slug} [{feature.stability or 'no stability'}]")
        if pending:
            self.report.awaiting_approval.append(feature.slug)
        return feature

    def plan_track(self, feature):
        """A track of its own for a new feature, with a slug no track has (as create_for)."""
        base = feature.slug[:100]
        version = self.release.version.replace(".", "-")
        slug = unique_slug(base, self.taken_track_slugs, f"{base}-{version}")
        self.taken_track_slugs.add(slug)
        track = Track(name=feature.title, slug=slug, area=feature.area)
        self.new_tracks.append(track)
        return track

    def plan_update(self, feature, parsed_feature, area):
        post = imported_values(parsed_feature, area)
        current = {
            "title": feature.title,
            "stability": feature.stability,
            "stage_source": feature.stage_source,
            "stage_label": feature.stage_label,
            "kind": feature.kind,
            "area": feature.area.slug,
            "position": feature.position,
        }
        previous = {**TRACKED_DEFAULTS, **(feature.imported_values or {})}
        sourced = self.record_source(feature, self.source_of(parsed_feature))
        changed = []
        for name in TRACKED_FIELDS:
            if current[name] == post[name]:
                continue
            if name in previous and current[name] == previous[name]:
                changed.append(name)
            else:
                self.report.kept.append(
                    f"{feature.slug}: {name} '{current[name]}' (the post says '{post[name]}')"
                )
        for name in changed:
            if name == "area":
                feature.area = area
            else:
                setattr(feature, name, post[name])
        if "kind" in changed:  # a notice has no track; a feature becoming one loses its own
            feature.track = None if feature.is_notice else feature.track or self.plan_track(feature)
        if changed or previous != post or sourced:
            feature.imported_values = post
            validate(feature, parsed_feature.line, exclude=["release", "area", "track"])
            self.changed_features.append(feature)
        if changed:
            self.report.updated.append(f"{feature.slug}: {', '.join(changed)}")
        else:
            self.report.unchanged.append(feature.slug)

    def source_of(self, parsed_feature):
        return {
            **self.post,
            "source_section": parsed_feature.section[:200],
            "source_line": parsed_feature.line,
        }

    def record_source(self, obj, source):
        """Set ``obj``'s provenance to ``source``; True if that changed it."""
        if all(getattr(obj, name) == value for name, value in source.items()):
            return False
        for name, value in source.items():
            setattr(obj, name, value)
        self.report.sources_recorded += 1
        return True

    def plan_links(self, feature, parsed_feature, current_links):
        """Add the post's links the feature lacks; never alter or remove what is there."""
        for line, label, reason in parsed_feature.left_out:
            self.report.left_out.append(f"line {line}: {feature.slug}: '{label}': {reason}")
        by_url = {link.url: link for link in current_links if link.url}
        by_label = {link.label.lower(): link for link in current_links}
        position = max((link.position for link in current_links), default=0)
        for parsed_link in parsed_feature.links:
            self.report.links += 1
            self.report.missing_links += parsed_link.is_missing
            if parsed_link.url and parsed_link.url in by_url:
                self.source_link(by_url[parsed_link.url], parsed_link)
                continue
            if parsed_link.is_missing and parsed_link.label.lower() in by_label:
                filled = by_label[parsed_link.label.lower()]
                self.source_link(filled, parsed_link)
                if filled.url:
                    self.report.kept.append(
                        f"{feature.slug}: link '{filled.label}' filled in by an editor "
                        f"({filled.url})"
                    )
                continue
            position += 1
            link = Link(
                feature=feature,
                kind=parsed_link.kind,
                label=parsed_link.label[:200],
                url=parsed_link.url,
                position=position,
                source_line=parsed_link.line,
            )
            validate(link, parsed_link.line, exclude=["feature"])
            if link.url:
                by_url[link.url] = link
            by_label[link.label.lower()] = link
            self.new_links.append(link)
            self.report.links_created += 1

    def source_link(self, link, parsed_link):
        """An existing link the post gives: its line, if the importer has not recorded it yet
        (the first mention, when the post gives one URL twice)."""
        if link.pk is None or link in self.changed_links:
            return
        if self.record_source(link, {"source_line": parsed_link.line}):
            self.changed_links.append(link)

    def plan_claims(self, others):
        """
        The post's stage claims the release does not hold yet, each attached to the feature
        or track it names: a feature of the post, else the catalog's track that fits best.
        A claim that states the stage its feature already has from the post (its tag, or
        this very sentence for a feature with no tag) is accepted as it is; the others wait for
        an editor. Claims already held keep their editor's decision.
        """
        claims = self.parsed.claims
        self.report.claims = len(claims)
        self.new_claims = []
        if not claims:
            return
        held = {}
        if self.release.pk:
            held = {(claim.line, claim.subject): claim for claim in self.release.stage_claims.all()}
        by_slug = self.features_by_slug
        by_track = {
            feature.track_id: feature
            for feature in [*by_slug.values(), *others.values()]
            if feature.track_id
        }
        tracks = None
        for parsed_claim in claims:
            subject = parsed_claim.subject[:200]
            source = {**self.post, "source_section": parsed_claim.section[:200]}
            if (parsed_claim.line, subject) in held:
                claim = held[(parsed_claim.line, subject)]
                if claim is not None and self.record_source(claim, source):
                    self.changed_claims.append(claim)
                continue
            held[(parsed_claim.line, subject)] = None
            feature = by_slug.get(parsed_claim.feature)
            track_id = None
            if feature is None:
                tracks = tracks or TrackNames(exclude_release=self.release)
                track_id = tracks.best(subject)
                feature = by_track.get(track_id)
            confirms = (
                feature is not None
                and feature.stability == parsed_claim.stability
                and feature.stage_source in (StageSource.TAG, StageSource.CLAIM)
            )
            claim = StageClaim(
                release=self.release,
                subject=subject,
                stability=parsed_claim.stability,
                phrase=parsed_claim.phrase[:100],
                line=parsed_claim.line,
                feature=feature,
                track_id=track_id,
                status=ClaimStatus.ACCEPTED if confirms else ClaimStatus.PENDING,
                **source,
            )
            validate(claim, parsed_claim.line, exclude=["release", "feature", "track"])
            self.new_claims.append(claim)
            target = feature.slug if feature is not None else "names no track yet"
            if track_id is not None and feature is None:
                target = f"track {tracks.slugs[track_id]}"
            verdict = "to review"
            if confirms:
                verdict = (
                    "agrees with its tag"
                    if feature.stage_source == StageSource.TAG
                    else "states its own section's stage"
                )
            self.report.claims_to_review += not confirms
            self.report.claims_created.append(
                f"line {parsed_claim.line}: '{subject}' {parsed_claim.stability} "
                f"({target}; {verdict})"
            )
        self.source_claimed(others, [claim for claim in held.values() if claim is not None])

    def source_claimed(self, others, claims):
        """
        A feature an accepted claim added (the post lists no such feature) was read from the
        claim's sentence: its provenance is the claim's.
        """
        for feature in others.values():
            if feature.stage_source != StageSource.CLAIM:
                continue
            accepted = [
                claim
                for claim in claims
                if claim.feature_id == feature.pk and claim.status == ClaimStatus.ACCEPTED
            ]
            if not accepted:
                continue
            claim = min(accepted, key=lambda claim: claim.line)
            source = {name: getattr(claim, name) for name in CLAIM_SOURCE_FIELDS}
            if self.record_source(feature, {**source, "source_line": claim.line}):
                self.changed_features.append(feature)

    def apply(self, source=""):
        """Write the plan in one short transaction; re-plan first if the catalog moved."""
        if not (
            self.report.changed_anything
            or self.changed_features
            or self.changed_links
            or self.changed_claims
        ):
            return
        try:
            with writes.acting_as(f"import_post {source}".strip()), transaction.atomic():
                if fingerprint(self.release) != self.fingerprint:
                    self.make()  # an editor saved in between: plan again, inside the lock
                self.write()  # each row written is checked at the version it was read at
        except writes.StaleEdit as stale:
            raise ImportProblem(
                f"an editor changed {stale.model._meta.verbose_name} {stale.pk} during the "
                "import, which wrote nothing: import the post again"
            ) from None

    def write(self):
        release = self.release
        if self.areas.created:
            type(self.areas.created[0]).objects.bulk_create(self.areas.created)
        if self.report.release_changes or release.pk is None:
            release.save()
        # Django copies the ids of related objects saved since they were assigned.
        Track.objects.bulk_create(self.new_tracks)
        Feature.objects.bulk_create(self.new_features)
        if self.changed_features:
            Feature.objects.bulk_update(
                self.changed_features,
                [
                    "title",
                    "stability",
                    "stage_source",
                    "stage_label",
                    "kind",
                    "track",
                    "area",
                    "position",
                    "imported_values",
                    *SOURCE_FIELDS,
                ],
            )
        Link.objects.bulk_create(self.new_links)
        if self.changed_links:
            Link.objects.bulk_update(self.changed_links, ["source_line"])
        if self.changed_claims:
            StageClaim.objects.bulk_update(self.changed_claims, CLAIM_SOURCE_FIELDS)
        for claim in self.new_claims:
            if claim.feature is not None and claim.track_id is None:
                claim.track = claim.feature.track
        StageClaim.objects.bulk_create(self.new_claims)

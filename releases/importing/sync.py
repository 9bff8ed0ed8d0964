"""
Map a parsed post onto the catalog: create or update a draft release, its features and links.

Editors own what they curate. The importer remembers what it last wrote for each feature
(``Feature.imported_values``); on a re-import it changes a field only while it still holds
the imported value, and reports every editor's choice it kept instead. It never deletes a
feature or a link, never touches summaries, and never unpublishes a release.
"""

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from ..models import Area, Feature, Link, Release, normalize_heading
from ..versions import Version
from .parse import slugify

UNFILED_AREA = "Other"
TRACKED_FIELDS = ("title", "stability", "area", "position")


class ImportProblem(Exception):
    """The post cannot be imported as it is; ``line`` points at the cause in the post."""

    def __init__(self, message, line=None):
        super().__init__(message)
        self.message, self.line = message, line


@dataclass
class ImportReport:
    version: str
    release_created: bool = False
    published: bool = False
    created: list = field(default_factory=list)
    updated: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    not_in_post: list = field(default_factory=list)
    links: int = 0
    links_created: int = 0
    missing_links: int = 0
    new_areas: list = field(default_factory=list)

    @property
    def changed_anything(self):
        return bool(self.release_created or self.created or self.updated or self.links_created)

    def lines(self):
        state = "published" if self.published else "draft"
        lines = [
            f"Release {self.version}: {'created' if self.release_created else 'existing'} "
            f"({state})",
            f"Features: {len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged",
            f"Links: {self.links} in the post, {self.links_created} created, "
            f"{self.missing_links} missing (no URL yet)",
        ]
        lines += [f"  + {item}" for item in self.created]
        lines += [f"  ~ {item}" for item in self.updated]
        if self.new_areas:
            lines.append(f"New areas for editors to review: {', '.join(self.new_areas)}")
        if self.kept:
            lines.append("Kept editors' changes (the post says otherwise):")
            lines += [f"  = {item}" for item in self.kept]
        if self.not_in_post:
            lines.append("In the catalog but not in the post (left as they are):")
            lines += [f"  ? {item}" for item in self.not_in_post]
        return lines


class AreaResolver:
    """Find the area a heading names, by name or alias; optionally create it for review."""

    def __init__(self):
        self.by_heading = {}
        for area in Area.objects.prefetch_related("aliases"):
            self.by_heading[normalize_heading(area.name)] = area
            for alias in area.aliases.all():
                self.by_heading[normalize_heading(alias.name)] = area
        self.created = []

    def find(self, heading):
        return self.by_heading.get(normalize_heading(heading or UNFILED_AREA))

    def resolve(self, heading, line):
        area = self.find(heading)
        if area is None:
            name = (heading or UNFILED_AREA).strip()[:100]
            slug, n = slugify(name), 1
            while Area.objects.filter(slug=slug).exists():
                n += 1
                slug = f"{slugify(name)}-{n}"
            area = Area(name=name, slug=slug, needs_review=True)
            save_checked(area, line)
            self.by_heading[normalize_heading(name)] = area
            self.created.append(name)
        return area


def save_checked(obj, line):
    """Validate like a form would, so that bad data fails with the post's line, then save."""
    try:
        obj.full_clean()
    except ValidationError as error:
        problems = "; ".join(
            f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items()
        )
        message = f"cannot store {obj._meta.verbose_name} '{obj}': {problems}"
        raise ImportProblem(message, line) from None
    obj.save()


def find_release(version):
    parts = Version.parse(version).as_dict()
    return Release.objects.filter(**parts).first()


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


def import_post(parsed, *, publish=False, release_date=None, dry_run=False):
    """Import a ParsedPost atomically; with ``dry_run`` everything is rolled back."""
    if not parsed.version:
        raise ImportProblem("cannot tell the version from the title; pass --version", 2)
    with transaction.atomic():
        report = _import(parsed, publish=publish, release_date=release_date)
        if dry_run:
            transaction.set_rollback(True)
    return report


def _import(parsed, *, publish, release_date):
    report = ImportReport(version=parsed.version)
    values = release_values(parsed)
    if release_date is not None:
        values["release_date"] = release_date
    release = find_release(parsed.version)
    if release is None:
        release = Release(version=parsed.version, **values)
        report.release_created = True
    else:
        for name, value in values.items():
            current = getattr(release, name)
            if current in ("", None):
                setattr(release, name, value)
            elif value not in ("", None) and current != value:
                report.kept.append(f"release {name}: kept the catalog's value")
    if publish and not release.is_published:
        if release.release_date is None:
            raise ImportProblem(
                f"cannot publish {parsed.version} without a release date: add 'date:' to the "
                "front matter or pass --date",
                1,
            )
        release.is_published = True
    report.published = release.is_published
    save_checked(release, 1)

    areas = AreaResolver()
    existing = {
        feature.slug: feature
        for feature in release.features.select_related("area").prefetch_related("links")
    }
    for parsed_feature in parsed.features:
        area = areas.resolve(parsed_feature.area, parsed_feature.line)
        feature = existing.pop(parsed_feature.slug, None)
        if feature is None:
            feature = _create_feature(release, parsed_feature, area)
            report.created.append(f"{feature.slug} [{feature.stability or 'no stability'}]")
            current_links = []
        else:
            _update_feature(feature, parsed_feature, area, report)
            current_links = list(feature.links.all())
        _sync_links(feature, parsed_feature, current_links, report)
    report.not_in_post = sorted(existing)
    report.new_areas = areas.created
    return report


def _imported_values(parsed_feature, area):
    return {
        "title": parsed_feature.title[:200],
        "stability": parsed_feature.stability or "",
        "area": area.slug,
        "position": parsed_feature.position,
    }


def _create_feature(release, parsed_feature, area):
    values = _imported_values(parsed_feature, area)
    feature = Feature(
        release=release,
        slug=parsed_feature.slug,
        title=values["title"],
        stability=values["stability"],
        area=area,
        position=values["position"],
        imported_values=values,
    )
    save_checked(feature, parsed_feature.line)
    return feature


def _update_feature(feature, parsed_feature, area, report):
    post = _imported_values(parsed_feature, area)
    current = {
        "title": feature.title,
        "stability": feature.stability,
        "area": feature.area.slug,
        "position": feature.position,
    }
    previous = feature.imported_values or {}
    changed = []
    for name in TRACKED_FIELDS:
        if current[name] == post[name]:
            continue
        if name in previous and current[name] == previous[name]:
            changed.append(name)
        else:
            report.kept.append(
                f"{feature.slug}: {name} '{current[name]}' (the post says '{post[name]}')"
            )
    for name in changed:
        if name == "area":
            feature.area = area
        else:
            setattr(feature, name, post[name])
    if changed or previous != post:
        feature.imported_values = post
        save_checked(feature, parsed_feature.line)
    if changed:
        report.updated.append(f"{feature.slug}: {', '.join(changed)}")
    else:
        report.unchanged.append(feature.slug)


def _sync_links(feature, parsed_feature, current_links, report):
    """Add the post's links the feature lacks; never alter or remove what is there."""
    by_url = {link.url: link for link in current_links if link.url}
    by_label = {link.label.lower(): link for link in current_links}
    position = max((link.position for link in current_links), default=0)
    for parsed_link in parsed_feature.links:
        report.links += 1
        report.missing_links += parsed_link.is_missing
        if parsed_link.url and parsed_link.url in by_url:
            continue
        if parsed_link.is_missing and parsed_link.label.lower() in by_label:
            filled = by_label[parsed_link.label.lower()]
            if filled.url:
                report.kept.append(
                    f"{feature.slug}: link '{filled.label}' filled in by an editor ({filled.url})"
                )
            continue
        position += 1
        link = Link(
            feature=feature,
            kind=parsed_link.kind,
            label=parsed_link.label[:200],
            url=parsed_link.url,
            position=position,
        )
        save_checked(link, parsed_link.line)
        if link.url:
            by_url[link.url] = link
        by_label[link.label.lower()] = link
        report.links_created += 1


def compare(parsed, release):
    """Every difference between a post and the release in the catalog, as lines of text."""
    if release is None:
        return [f"release {parsed.version}: in the post, not in the catalog"]
    areas = AreaResolver()
    differences = []
    catalog = {
        feature.slug: feature
        for feature in release.features.select_related("area").prefetch_related("links")
    }
    for parsed_feature in parsed.features:
        slug = parsed_feature.slug
        feature = catalog.pop(slug, None)
        if feature is None:
            differences.append(
                f"{slug}: in the post (line {parsed_feature.line}), not in the catalog"
            )
            continue
        stability = parsed_feature.stability or ""
        if feature.stability != stability:
            differences.append(
                f"{slug}: stability '{feature.stability or 'none'}' in the catalog, "
                f"'{stability or 'none'}' in the post"
            )
        area = areas.find(parsed_feature.area)
        if area is None:
            differences.append(
                f"{slug}: the post's heading '{parsed_feature.area}' matches no area"
            )
        elif area.pk != feature.area_id:
            differences.append(
                f"{slug}: area '{feature.area.slug}' in the catalog, '{area.slug}' in the post"
            )
        links = list(feature.links.all())
        catalog_urls = {link.url for link in links if link.url}
        post_urls = {link.url for link in parsed_feature.links if link.url}
        for url in sorted(post_urls - catalog_urls):
            differences.append(f"{slug}: link {url} in the post, not in the catalog")
        for url in sorted(catalog_urls - post_urls):
            differences.append(f"{slug}: link {url} in the catalog, not in the post")
        catalog_missing = {link.label.lower() for link in links if not link.url}
        post_missing = {link.label.lower() for link in parsed_feature.links if not link.url}
        for label in sorted(post_missing - catalog_missing):
            differences.append(f"{slug}: missing link '{label}' in the post, not in the catalog")
        for label in sorted(catalog_missing - post_missing):
            differences.append(f"{slug}: missing link '{label}' in the catalog, not in the post")
    for slug in sorted(catalog):
        differences.append(f"{slug}: in the catalog, not in the post")
    return differences

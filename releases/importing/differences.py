"""
How a post's reading differs from the catalog's: what an import would change, feature by
feature, and what the importer last wrote (to tell an editor's change from the post's).
"""

from django.db.models import Count, Max

from releases.importing.areas import AreaResolver
from releases.models import (
    Feature,
    FeatureKind,
    Link,
    Release,
    StageSource,
)


def fingerprint(release):
    """What an editor's save would change about a release and its features and links."""
    if release is None or release.pk is None:
        return None
    features = Feature.objects.filter(release=release).aggregate(
        count=Count("pk"), latest=Max("updated_at")
    )
    links = Link.objects.filter(feature__release=release).aggregate(
        count=Count("pk"), latest=Max("updated_at")
    )
    stamp = Release.objects.filter(pk=release.pk).values_list("updated_at", flat=True).first()
    return (stamp, features["count"], features["latest"], links["count"], links["latest"])


def imported_values(parsed_feature, area):
    return {
        "title": parsed_feature.title[:200],
        "stability": parsed_feature.stability or "",
        "stage_source": parsed_feature.stage_source or "",
        "stage_label": parsed_feature.stage_label[:40],
        "kind": parsed_feature.kind or FeatureKind.FEATURE,
        "area": area.slug,
        "position": parsed_feature.position,
    }


def differences(parsed, release):
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
        # A stage from an accepted claim is the post's own prose speaking, not a difference.
        if feature.stability != stability and feature.stage_source != StageSource.CLAIM:
            differences.append(
                f"{slug}: stability '{feature.stability or 'none'}' in the catalog, "
                f"'{stability or 'none'}' in the post"
            )
        for name, label in (("stage_label", "stage label"), ("kind", "kind")):
            catalog_value, post_value = getattr(feature, name), getattr(parsed_feature, name)
            # An accepted claim's stage label is the editor's reading of the prose.
            by_claim = name == "stage_label" and feature.stage_source == StageSource.CLAIM
            if catalog_value != post_value and not by_claim:
                differences.append(
                    f"{slug}: {label} '{catalog_value or 'none'}' in the catalog, "
                    f"'{post_value or 'none'}' in the post"
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
        if catalog[slug].stage_source != StageSource.CLAIM:
            differences.append(f"{slug}: in the catalog, not in the post")
    post_claims = {(claim.line, claim.subject[:200]): claim.stability for claim in parsed.claims}
    catalog_claims = {
        (claim.line, claim.subject): claim.stability for claim in release.stage_claims.all()
    }
    for line, subject in sorted(post_claims.keys() - catalog_claims.keys()):
        differences.append(f"claim on line {line} '{subject}': in the post, not in the catalog")
    for line, subject in sorted(catalog_claims.keys() - post_claims.keys()):
        differences.append(f"claim on line {line} '{subject}': in the catalog, not in the post")
    for key in sorted(post_claims.keys() & catalog_claims.keys()):
        if post_claims[key] != catalog_claims[key]:
            differences.append(
                f"claim on line {key[0]} '{key[1]}': '{catalog_claims[key]}' in the catalog, "
                f"'{post_claims[key]}' in the post"
            )
    return differences

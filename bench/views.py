"""
The baseline the benchmark measures the product against: the same page of features as
/api/features/, written by hand with .values() and JsonResponse, with no framework, filters
validation, caching headers or throttling. It understands only page, release and stability.
"""

from collections import defaultdict

from django.http import JsonResponse

from releases.models import Feature, Link
from releases.versions import Version

PAGE_SIZE = 50
FIELDS = {
    "release": "release__version",
    "title": "title",
    "slug": "slug",
    "stability": "stability",
    "area": "area__slug",
    "area_name": "area__name",
    "summary": "summary",
    "position": "position",
    "track": "track__slug",
}


def baseline_features(request):
    features = Feature.objects.filter(release__is_published=True)
    if "release" in request.GET:
        features = features.filter(release_version_key=Version.parse(request.GET["release"]).key)
    if "stability" in request.GET:
        features = features.filter(stability=request.GET["stability"])
    page = int(request.GET.get("page", "1"))
    count = features.count()
    start = (page - 1) * PAGE_SIZE
    rows = list(
        features.order_by("-release_version_key", "position").values("pk", *FIELDS.values())[
            start : start + PAGE_SIZE
        ]
    )
    links = defaultdict(list)
    for feature_id, kind, label, url in (
        Link.objects.filter(feature_id__in=[row["pk"] for row in rows])
        .order_by("feature_id", "position", "pk")
        .values_list("feature_id", "kind", "label", "url")
    ):
        links[feature_id].append(
            {"kind": kind, "label": label, "url": url or None, "is_missing": not url}
        )
    results = [
        {
            **{key: row[path] for key, path in FIELDS.items()},
            "stability": row["stability"] or None,
            "links": links[row["pk"]],
        }
        for row in rows
    ]
    return JsonResponse({"count": count, "results": results})

"""
Pages for people: the catalog as server-rendered HTML (no script needed to read or navigate).

Each page reads through the same QuerySets as the API, in a bounded number of queries, links
the API URL that gives the same data and its feed, and never shows a draft. Unknown versions
and slugs are 404 pages in the same design.
"""

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import Http404, QueryDict
from django.shortcuts import render
from django.urls import reverse

from . import timeline, versions
from .filters import FACET_FIELDS, NO_STABILITY, CompareForm, FeatureFilterSet, feature_facets
from .models import Area, Feature, Release, Stability, StageSource, Track
from .params import without_empty
from .tracks import compare

STAGES = Stability.choices


def api_url(name, query=None, **kwargs):
    url = reverse(f"releases:{name}", kwargs=kwargs or None)
    return f"{url}?{urlencode(query, doseq=True)}" if query else url


def home(request):
    """The latest release, what changed stage in it, counts, and a search box."""
    releases = list(Release.objects.for_api())
    latest = releases[0] if releases else None
    promoted, counts = [], []
    if latest is not None:
        promoted = list(Track.objects.for_api().promoted_in(latest.version))
        # The API's stability facet of the release: one grouped query.
        by_stage = feature_facets(QueryDict(f"release={latest.version}"), ["stability"])
        counts = [(value, label, by_stage["stability"][value]) for value, label in STAGES]
    return render(
        request,
        "pages/home.html",
        {
            "latest": latest,
            "releases": releases[:6],
            "promoted": promoted,
            "counts": counts,
            "api_url": api_url("release-list"),
        },
    )


def release_list(request):
    return render(
        request,
        "pages/release_list.html",
        {"releases": Release.objects.for_api(), "api_url": api_url("release-list")},
    )


def release_detail(request, version):
    try:
        key = versions.Version.parse(version).key
    except versions.InvalidVersion:
        raise Http404(f"No release {version}.") from None
    release = Release.objects.for_api_detail().filter(version_key=key).first()
    if release is None:
        raise Http404(f"No release {version}.")
    groups = {}
    for feature in release.features.all():
        groups.setdefault(feature.area, []).append(feature)
    return render(
        request,
        "pages/release_detail.html",
        {
            "release": release,
            "groups": sorted(groups.items(), key=lambda item: item[0].name.lower()),
            "api_url": api_url("release-detail", version=release.version),
            "claim": StageSource.CLAIM,
        },
    )


def track_list(request):
    tracks = list(Track.objects.for_api())
    return render(
        request, "pages/track_list.html", {"tracks": tracks, "api_url": api_url("track-list")}
    )


def track_detail(request, slug):
    track = Track.objects.for_api().filter(slug=slug).first()
    if track is None:
        raise Http404(f"No track {slug}.")
    axis = [release.version for release in Release.objects.published().oldest_first()]
    drawing = timeline.draw(
        axis,
        [
            (a.release.version, a.stability, a.title, a.stage_source == StageSource.CLAIM)
            for a in track.appearances
        ],
    )
    return render(
        request,
        "pages/track_detail.html",
        {
            "track": track,
            "timeline": drawing,
            "api_url": api_url("track-detail", slug=track.slug),
            "feed_url": reverse("feed-track", kwargs={"slug": track.slug}),
            "claim": StageSource.CLAIM,
        },
    )


def matrix(request):
    """Tracks × releases, each cell the stage at that release; filter by area and stage."""
    areas = list(Area.objects.order_by("name"))
    area = request.GET.get("area") or ""
    stage = request.GET.get("stage") or ""
    errors = []
    if area and area not in {a.slug for a in areas}:
        errors.append(f"Unknown area '{area}'.")
    if stage and stage not in Stability.values:
        errors.append(f"Unknown stage '{stage}': stable, beta or prototype.")
    releases = list(Release.objects.published().oldest_first())
    tracks = Track.objects.for_api()
    if area and not errors:
        tracks = tracks.filter(area__slug=area)
    if stage and not errors:
        tracks = tracks.filter(stage=stage)
    rows = []
    for track in [] if errors else tracks:
        by_version = {a.release.version: a for a in track.appearances}
        cells, current = [], None
        for release in releases:
            appearance = by_version.get(release.version)
            if appearance is not None:
                current = appearance.stability or "none"
                cells.append((release, current, True, appearance))
            else:
                cells.append((release, current, False, None))
        rows.append((track, cells))
    status = 400 if errors else 200
    return render(
        request,
        "pages/matrix.html",
        {
            "releases": releases,
            "rows": rows,
            "areas": areas,
            "area": area,
            "stage": stage,
            "stages": STAGES,
            "errors": errors,
            "api_url": api_url("track-list", {"area": area} if area else None),
        },
        status=status,
    )


def compare_page(request):
    releases = list(Release.objects.published().oldest_first())
    form = CompareForm(request.GET or None)
    result = None
    if request.GET and form.is_valid():
        known = {release.version for release in releases}
        start, end = form.cleaned_data["from"], form.cleaned_data["to"]
        missing = [v for v in (start, end) if versions.normalize(v) not in known]
        if missing:
            raise Http404(f"No release {', '.join(missing)}.")
        result = compare(start, end)
    return render(
        request,
        "pages/compare.html",
        {
            "form": form,
            "releases": releases,
            "result": result,
            "start": request.GET.get("from", ""),
            "end": request.GET.get("to", ""),
            "api_url": api_url("compare", request.GET if result else None),
        },
        status=400 if request.GET and not form.is_valid() else 200,
    )


def feature_list(request):
    """The API's filters as a form, with how many features each choice would give."""
    query = without_empty(request.GET)
    filterset = FeatureFilterSet(query, queryset=Feature.objects.for_api())
    if not filterset.is_valid():
        return render(
            request,
            "pages/features.html",
            {"errors": filterset.errors, "api_url": api_url("feature-list")},
            status=400,
        )
    features = filterset.qs.select_related("release", "area")
    page = Paginator(features, 50).get_page(query.get("page"))
    facets = feature_facets(query, list(FACET_FIELDS))
    chosen = {name: set(",".join(query.getlist(name)).split(",")) for name in FACET_FIELDS}
    labels = dict(STAGES) | {NO_STABILITY: "No stage"}
    area_names = dict(Area.objects.values_list("slug", "name"))
    choices = {
        "stability": [
            (v, labels.get(v, v), n, v in chosen["stability"])
            for v, n in facets["stability"].items()
        ],
        "area": [
            (v, area_names.get(v, v), n, v in chosen["area"]) for v, n in facets["area"].items()
        ],
        "release": [(v, v, n, v in chosen["release"]) for v, n in facets["release"].items()],
    }
    query = query.copy()
    query.pop("page", None)
    return render(
        request,
        "pages/features.html",
        {
            "page": page,
            "choices": choices,
            "search": query.get("search", ""),
            "query": query.urlencode(),
            "api_url": api_url("feature-list", query),
            "claim": StageSource.CLAIM,
        },
    )

"""
Pages for people: the catalog as server-rendered HTML (no script needed to read or navigate).

Each page reads through the same QuerySets as the API, in a bounded number of queries, links
the API URL that gives the same data and its feed, and never shows a draft. Unknown versions
and slugs are 404 pages in the same design.

A page's query is read by the query layer beneath the API (releases.queries), so a page takes
the parameters of the API URL it links to (but ``format``: a page is HTML), and refuses what
the API refuses with a 400 page naming each parameter: a list page reads its list
(releases.queries.reading) as the API does, the compare page through the same form, and a page
that takes no parameter refuses every one. The empty fields a page's form sends mean "any".
"""

from collections import Counter

from django.contrib.sitemaps import views as sitemaps_views
from django.db.models import Count, Prefetch
from django.db.models.functions import Lower
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from releases import canonical, provenance, schemes, stats, versions
from releases.classification import NO_STAGE, StageChange, stage_change
from releases.links.fixes import archived_url
from releases.managers import upgrading_annotations
from releases.models import (
    Area,
    Feature,
    FeatureKind,
    Release,
    Stability,
    StageSource,
    Track,
)
from releases.pages import charts, compat, upgrades
from releases.pages.common import (
    STAGE_COLUMNS,
    STAGES,
    api_url,
    checks_query,
    other_pages,
    takes_no_query,
    tally,
)
from releases.queries import install, reading, wheels
from releases.queries.facets import feature_facets
from releases.queries.fields import values_of
from releases.queries.filtersets import FACET_FIELDS
from releases.queries.forms import CompareForm
from releases.queries.params import reject_bad_query
from releases.queries.sources import catalog_sources, open_disputes
from releases.tracks import upgrade_between

# The state page shows every track as of a version on one page (a few hundred at most).
STATE_PAGE_SIZE = 500


def stage_tally(release):
    """(value, label, count) for each stage of ``release`` (stats.with_stage_counts)."""
    return [(value, label, getattr(release, f"{value}_count")) for value, label in STAGE_COLUMNS]


def release_chart(releases):
    """Each release's features by stage as columns, oldest on the left, stable at the bottom."""
    items = [
        (release.version, {value: getattr(release, f"{value}_count") for value, _ in STAGE_COLUMNS})
        for release in releases
    ]
    words = dict(STAGE_COLUMNS)

    def describe(version, counts):
        shown = ", ".join(f"{counts[value]} {words[value].lower()}" for value in counts)
        return f"{version}: {shown}"

    return charts.columns(items, [value for value, _ in STAGE_COLUMNS], describe)


@checks_query
def home(request):
    """The latest release, what changed stage in it, each release's counts: a chart, a table."""
    takes_no_query(request)
    releases = list(stats.release_stats())  # oldest first, as the chart reads
    tallies = [(release, stage_tally(release)) for release in reversed(releases)]
    latest = releases[-1] if releases else None
    promoted = []
    if latest is not None:
        promoted = list(Track.objects.for_api().promoted_in(latest.version))
    return render(
        request,
        "pages/home.html",
        {
            "latest": latest,
            "latest_tally": tallies[0][1] if tallies else [],
            "tallies": tallies,
            "chart": release_chart(releases),
            "stage_columns": STAGE_COLUMNS,
            "promoted": promoted,
            "latest_patch": compat.latest_patch(latest.version) if latest else None,
            "newest_out": compat.newest_out(latest),
            "next_planned": compat.schedule_news(),
            "today": timezone.localdate(),
            "api_url": api_url("release-list"),
            "stats_url": api_url("stats-release-list"),
        },
    )


@checks_query
def release_list(request):
    """/api/releases/ as a table: its filters, its pages."""
    return render(
        request,
        "pages/release_list.html",
        {
            "releases": reading.RELEASES.for_request(request),
            "query": other_pages(request).urlencode(),
            "api_url": api_url("release-list", request.GET),
        },
    )


@checks_query
def release_detail(request, version):
    takes_no_query(request)
    try:
        key = versions.Version.parse(version).key
    except versions.InvalidVersion:
        raise Http404(f"No release {version}.") from None
    features = Feature.objects.public().for_release_page().with_previous_stability()
    release = (
        Release.objects.for_api()
        .with_compatibility()
        .with_wheels()
        .annotate(**upgrading_annotations())
        .prefetch_related(Prefetch("features", queryset=features))
        .filter(version_key=key)
        .first()
    )
    if release is None:
        raise Http404(f"No release {version}.")
    moved = canonical.redirect_to_canonical(request, release, version, "page-release")
    if moved:
        return moved
    # Who corrected what the post says, and when: one history query for the page.
    for feature in provenance.mark_edits(release.features.all()):
        for link in feature.links.all():  # a broken link offers its archived copy
            link.archive = archived_url(link.url, release.release_date) if link.is_broken else None
    groups = {}
    counted = release.counted_features  # its notices have a section of their own
    for feature in counted:
        groups.setdefault(feature.area, []).append(feature)
    return render(
        request,
        "pages/release_detail.html",
        {
            "release": release,
            "groups": sorted(groups.items(), key=lambda item: item[0].name.lower()),
            "notices": release.notices,
            "news": whats_new(counted) if counted else [],
            "stage_counts": tally(Counter(feature.stability for feature in counted)),
            "shared_label": shared_stage_label(counted),
            "runs_on": compat.runs_on(release),
            "wheels": wheels.summary(release.public_wheels),
            "install": install.release_commands(release),
            "upgrading": upgrades.upgrading_to(release),
            "api_url": api_url("release-detail", version=release.version),
            "claim": StageSource.CLAIM,
            "deprecation": FeatureKind.DEPRECATION,
        },
    )


def shared_stage_label(features):
    """The post's stage label, when every feature of the release that has one carries the same
    (2.14: "API Unstable" on all 50 with a stage): said once at the top, not under each."""
    labelled = [feature for feature in features if feature.stage_label]
    labels = {feature.stage_label for feature in labelled}
    # Only a label the page would explain (one that is not the stage's own name).
    explained = any(feature.stage_label.lower() != feature.stability for feature in labelled)
    return labels.pop() if len(labelled) > 1 and len(labels) == 1 and explained else ""


NEWS = [
    ("new", "New", "first seen in this release"),
    ("promoted", "Promoted", "more stable than at their last appearance"),
    ("demoted", "Demoted", "less stable than at their last appearance"),
    ("relabelled", "Relabelled", "beta or prototype before, API-Unstable in PyTorch's new scheme"),
    ("again", "Mentioned again", "seen before, at the same stage or with no stage to compare"),
]


def news_kind(feature):
    """How ``feature`` (annotated by with_previous_stability) stands to its track's past."""
    if feature.previous_stability is None:
        return "new"
    change = stage_change(feature.previous_stability, feature.stability)
    if change in (None, StageChange.SAME):
        return "again"
    return str(change)


def whats_new(features):
    """(kind, heading, meaning, features) for each kind of NEWS, in post order."""
    kinds = {kind: [] for kind, *_ in NEWS}
    for feature in features:
        kinds[news_kind(feature)].append(feature)
    return [(kind, heading, meaning, kinds[kind]) for kind, heading, meaning in NEWS]


@checks_query
def state(request, version):
    """
    /api/state/?version= as a page: every track's stage as of a published release, with the
    release that set it, narrowed by area and stage; a picker of every published release.
    """
    try:
        parsed = versions.Version.parse(version)
    except versions.InvalidVersion:
        raise Http404(f"No release {version}.") from None
    releases = list(Release.objects.announcing().oldest_first())
    release = next((r for r in releases if r.version_key == parsed.key), None)
    if release is None:
        raise Http404(f"No release {version}.")
    moved = canonical.redirect_to_canonical(request, release, version, "page-state")
    if moved:
        return moved
    if "version" in request.GET:
        raise ValidationError({"version": ["The version is in the path: leave it out."]})
    query = other_pages(request)
    # The version is parsed once (above): the list comes with its stages as of the release.
    page = reading.STATE_AT.for_request(
        request,
        prepare=lambda qs: qs.order_by(Lower("area__name"), Lower("name"), "pk"),
        size=STATE_PAGE_SIZE,
        queryset=Track.objects.for_api(as_of=parsed),
    )
    groups = []
    for standing in stats.standings(page, positions={}):
        if not groups or groups[-1][0] != standing.track.area:
            groups.append((standing.track.area, []))
        groups[-1][1].append(standing)
    if page.paginator.num_pages == 1 and not set(request.GET) - {"page", "page_size"}:
        counts = Counter(track.stage for track in page)  # every track is on the page
    else:  # the counts are of every track, whatever the filters
        counts = dict(
            Track.objects.with_stage(parsed).order_by().values_list("stage").annotate(Count("pk"))
        )
    return render(
        request,
        "pages/state.html",
        {
            "release": release,
            "releases": releases,
            "page": page,
            "groups": groups,
            "counts": tally(counts),
            "areas": Area.objects.published().order_by(Lower("name")),
            "area": request.GET.get("area", ""),
            "stability": request.GET.get("stability", ""),
            "stages": STAGE_COLUMNS,
            "search": request.GET.get("search", ""),
            "query": query.urlencode(),
            "api_url": api_url("state-list", {**query.dict(), "version": release.version}),
        },
    )


@checks_query
def compare_page(request):
    """/api/compare/ as a page: with no query, the form; with one, the API's checks first."""
    releases = list(Release.objects.announcing().oldest_first())
    result = None
    if request.GET:
        form = CompareForm(request.GET)
        # A version no published release has is the 400 naming it, as on /api/compare/.
        reject_bad_query(request.GET, set(form.fields), None if form.is_valid() else form.errors)
        start, end = form.cleaned_data["from"], form.cleaned_data["to"]
        result = upgrade_between(start, end)
        # What is new, by the release that brought it (the API lists it by name).
        by_release = {}
        for item in sorted(
            result["added"], key=lambda item: item["appearance"].release_version_key
        ):
            by_release.setdefault(item["appearance"].release, []).append(item)
        result["added_by_release"] = list(by_release.items())
    return render(
        request,
        "pages/compare.html",
        {
            "releases": releases,
            "result": result,
            "start": request.GET.get("from", ""),
            "end": request.GET.get("to", ""),
            "api_url": api_url("compare", request.GET if result else None),
        },
    )


@checks_query
def feature_list(request):
    """/api/features/ as a form, with how many features each choice would give."""
    page = reading.FEATURES.for_request(
        request, prepare=lambda qs: qs.select_related("release", "area")
    )
    # Read as the API's FilterSet reads a query: a choice's repeats (the form's checkboxes) joined.
    facets = feature_facets(request.GET, list(FACET_FIELDS))
    chosen = {name: set(values_of(request.GET, name)) for name in FACET_FIELDS}
    labels = dict(STAGES) | {NO_STAGE: "No stage"}
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
    query = other_pages(request)
    return render(
        request,
        "pages/features.html",
        {
            "page": page,
            "choices": choices,
            "search": query.get("search", ""),
            "naming": upgrades.naming_count(query.get("search", "")),
            "query": query.urlencode(),
            "api_url": api_url("feature-list", query),
            "claim": StageSource.CLAIM,
        },
    )


@checks_query
def sources(request):
    """Every source the catalog reads, pinned or dated, what it gave, and what is disputed."""
    takes_no_query(request)
    found = catalog_sources()
    return render(
        request,
        "pages/sources.html",
        {
            "sources": found,
            "pinned": sum(source.pinned for source in found),
            "disputes": open_disputes(),
        },
    )


@checks_query
def stages(request):
    """PyTorch's stage schemes as they changed (``releases.schemes``), with their sources."""
    takes_no_query(request)
    labels = dict(Stability.choices)
    return render(
        request,
        "pages/stages.html",
        {
            "schemes": [
                (
                    scheme,
                    [
                        (label, stage, labels[stage], meaning)
                        for label, stage, meaning in scheme.labels
                    ],
                )
                for scheme in schemes.SCHEMES
            ],
        },
    )


@checks_query
def sitemap(request, **kwargs):
    """django.contrib.sitemaps' sitemap, refusing parameters as every endpoint does."""
    takes_no_query(request)
    return sitemaps_views.sitemap(request, **kwargs)

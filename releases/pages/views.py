"""
Pages for people: the catalog as server-rendered HTML (no script needed to read or navigate).

Each page reads through the same QuerySets as the API, in a bounded number of queries, links
the API URL that gives the same data and its feed, and never shows a draft. Unknown versions
and slugs are 404 pages in the same design.

A page's query is read by the query layer beneath the API (releases.queries), so a page takes
the parameters of the API URL it links to (but ``format``: a page is HTML), and refuses what
the API refuses with a 400 page naming each parameter: a list page reads its list
(releases.queries.lists) as the API does, the compare page through the same form, and a page
that takes no parameter refuses every one. The empty fields a page's form sends mean "any".
"""

import functools
from urllib.parse import urlencode

from django.contrib.sitemaps import views as sitemaps_views
from django.db.models import Count, Prefetch
from django.db.models.functions import Lower
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe
from rest_framework.exceptions import ValidationError

from releases import canonical, memory, provenance, schemes, stats, versions
from releases.classification import StageChange, stage_change
from releases.links.fixes import archived_url
from releases.models import (
    Area,
    Feature,
    FeatureKind,
    Release,
    Stability,
    StageSource,
    Track,
)
from releases.pages import badges, charts, timeline
from releases.queries import lists
from releases.queries.facets import feature_facets
from releases.queries.fields import NO_STABILITY, values_of
from releases.queries.filtersets import FACET_FIELDS, GraduationFilterSet
from releases.queries.forms import CompareForm
from releases.queries.params import reject_bad_query, without_empty
from releases.tracks import upgrade_between

STAGES = Stability.choices
# The matrix shows every track on one page (its queries do not grow with the page); a catalog
# larger than this still pages, and ``page_size`` chooses a smaller page as on the API.
MATRIX_PAGE_SIZE = 1000
# How a stage reads in a matrix cell: the letter shown, then the rest of the word, which only
# screen readers read ("B" + "eta" is read "Beta").
CELL_WORDS = {
    Stability.STABLE: ("S", "table"),
    Stability.BETA: ("B", "eta"),
    Stability.PROTOTYPE: ("P", "rototype"),
    Stability.UNSTABLE: ("U", "nstable"),
    "none": ("N", "o stage"),
}


def api_url(name, query=None, **kwargs):
    url = reverse(f"releases:{name}", kwargs=kwargs or None)
    return f"{url}?{urlencode(query, doseq=True)}" if query else url


def checks_query(view):
    """
    The page ``view``, with its query as its form meant it (empty fields left out) and checked
    as the API checks one: what the API's checks refuse (a ValidationError naming each
    parameter) is the 400 page naming it.
    """

    @functools.wraps(view)
    def page(request, *args, **kwargs):
        request.GET = without_empty(request.GET)
        try:
            return view(request, *args, **kwargs)
        except ValidationError as error:
            return render(request, "400.html", {"problems": error.detail}, status=400)

    return page


def read(request, listing, query=None, **kwargs):
    """
    The page of ``listing`` (releases.queries.lists) this page's query asks for, read as the
    API reads it: a 400 for a malformed value or a parameter the list does not know, ``page``
    and ``page_size`` checked, a page past the last a 404, the count cached per revision.
    ``query`` stands for the request's where the page adds to it; ``prepare`` shapes the
    filtered queryset for the page; ``size`` is the page's own default page size.
    """
    return listing.read(
        request.GET if query is None else query,
        path=request.path,
        token=getattr(request, "catalog_revision", None),
        **kwargs,
    )


def takes_no_query(request):
    """A 400 naming every parameter of a page that takes none, as the API's details do."""
    reject_bad_query(request.GET, set())


def other_pages(request):
    """The page's query without ``page``: what the links to the other pages add theirs to."""
    query = request.GET.copy()
    query.pop("page", None)
    return query


STAGE_COLUMNS = [*STAGES, (NO_STABILITY, "No stage")]
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
            "releases": read(request, lists.RELEASES),
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
        .prefetch_related(Prefetch("features", queryset=features))
        .filter(version_key=key)
        .first()
    )
    if release is None:
        raise Http404(f"No release {version}.")
    moved = canonical.redirect_to_canonical(request, release, version, "page-release")
    if moved:
        return moved
    groups = {}
    # Who corrected what the post says, and when: one history query for the page.
    for feature in provenance.mark_edits(release.features.all()):
        groups.setdefault(feature.area, []).append(feature)
        for link in feature.links.all():  # a broken link offers its archived copy
            link.archive = archived_url(link.url, release.release_date) if link.is_broken else None
    return render(
        request,
        "pages/release_detail.html",
        {
            "release": release,
            "groups": sorted(groups.items(), key=lambda item: item[0].name.lower()),
            "news": whats_new(release.features.all()),
            "api_url": api_url("release-detail", version=release.version),
            "claim": StageSource.CLAIM,
            "deprecation": FeatureKind.DEPRECATION,
        },
    )


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
        key = versions.Version.parse(version).key
    except versions.InvalidVersion:
        raise Http404(f"No release {version}.") from None
    releases = list(Release.objects.published().oldest_first())
    release = next((r for r in releases if r.version_key == key), None)
    if release is None:
        raise Http404(f"No release {version}.")
    moved = canonical.redirect_to_canonical(request, release, version, "page-state")
    if moved:
        return moved
    if "version" in request.GET:
        raise ValidationError({"version": ["The version is in the path: leave it out."]})
    query = other_pages(request)
    state_query = request.GET.copy()
    state_query["version"] = release.version
    page = read(
        request,
        lists.STATE,
        state_query,
        prepare=lambda qs: qs.order_by(Lower("area__name"), Lower("name"), "pk"),
        size=STATE_PAGE_SIZE,
    )
    groups = []
    for standing in stats.standings(page, positions={}):
        if not groups or groups[-1][0] != standing.track.area:
            groups.append((standing.track.area, []))
        groups[-1][1].append(standing)
    counts = dict(
        Track.objects.with_stage(release.version)
        .order_by()
        .values_list("stage")
        .annotate(total=Count("pk"))
    )
    return render(
        request,
        "pages/state.html",
        {
            "release": release,
            "releases": releases,
            "page": page,
            "groups": groups,
            "counts": [
                (value, label, counts.get("" if value == NO_STABILITY else value, 0))
                for value, label in STAGE_COLUMNS
            ],
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
def track_list(request):
    """/api/tracks/ as a table: its filters, its pages."""
    return render(
        request,
        "pages/track_list.html",
        {
            "tracks": read(request, lists.TRACKS),
            "search": request.GET.get("search", ""),
            "query": other_pages(request).urlencode(),
            "api_url": api_url("track-list", request.GET),
        },
    )


def track_url(track):
    return reverse("page-track", kwargs={"slug": track.slug})


@checks_query
def track_detail(request, slug):
    takes_no_query(request)
    track = Track.objects.for_api().filter(slug=slug).first()
    if track is None:
        raise Http404(f"No track {slug}.")
    axis = [release.version for release in Release.objects.published().oldest_first()]
    stages = [None, *(a.stability for a in track.appearances)]
    drawing = timeline.draw(
        axis,
        [
            (
                a.release.version,
                a.stability,
                a.title,
                a.stage_source == StageSource.CLAIM,
                stage_change(before, a.stability) == StageChange.RELABELLED,
            )
            for a, before in zip(track.appearances, stages, strict=False)
        ],
    )
    badge_url = request.build_absolute_uri(reverse("badge-track-svg", kwargs={"slug": track.slug}))
    endpoint_url = request.build_absolute_uri(
        reverse("badge-track-json", kwargs={"slug": track.slug})
    )
    start = stats.run_start(track.appearances)
    provenance.mark_edits(track.appearances)  # one history query, if any was corrected
    return render(
        request,
        "pages/track_detail.html",
        {
            "track": track,
            "since": start.release.version,
            "badge": badges.track_badge(track.name, track.stage, start.release.version),
            "badge_url": badge_url,
            "page_url": request.build_absolute_uri(track_url(track)),
            "shields_url": "https://img.shields.io/endpoint?" + urlencode({"url": endpoint_url}),
            "timeline": drawing,
            "api_url": api_url("track-detail", slug=track.slug),
            "feed_url": reverse("feed-track", kwargs={"slug": track.slug}),
            "claim": StageSource.CLAIM,
        },
    )


HIDDEN = '<span class="visually-hidden">{}</span>'
CHANGES = {
    "": "",
    "up": '<span aria-hidden="true">▲</span>' + HIDDEN.format(", promoted"),
    "down": '<span aria-hidden="true">▼</span>' + HIDDEN.format(", demoted"),
    "relabel": '<span aria-hidden="true">↻</span>' + HIDDEN.format(", relabelled"),
}


@functools.cache
def matrix_cell(stage, appeared, change=""):
    """
    A cell of the matrix, as HTML made of fixed words only (so it is built once): the stage
    at an appearance (solid, its letter shown, with ▲ or ▼ where it rose or fell), the stage
    the track kept since (pale, the word for screen readers only), or nothing yet.
    """
    if stage is None:
        return "<td></td>"
    letter, rest = CELL_WORDS[stage]
    if not appeared:
        return f'<td class="kept stage-{stage}">{HIDDEN.format(letter + rest)}</td>'
    return f'<td class="on stage-{stage}">{letter}{HIDDEN.format(rest)}{CHANGES[change]}</td>'


MATRIX_MARKS = {
    StageChange.PROMOTED: "up",
    StageChange.DEMOTED: "down",
    StageChange.RELABELLED: "relabel",
}


def matrix_cells(track, releases):
    """
    A row of the matrix, one cell per release, as HTML (the matrix has thousands of cells:
    a template would spend most of the page's time on them). A release without an appearance
    keeps the stage of the one before; a change is "up" or "down" where the stage rose or fell.
    """
    by_version = {a.release.version: a for a in track.appearances}
    cells, current, stage = [], None, None
    for release in releases:
        appearance = by_version.get(release.version)
        if appearance is None:
            cells.append(matrix_cell(current, False))
            continue
        current = appearance.stability or NO_STABILITY
        change = MATRIX_MARKS.get(stage_change(stage, appearance.stability), "")
        stage = appearance.stability or stage
        cells.append(matrix_cell(current, True, change))
    return mark_safe("".join(cells))  # fixed words only: see matrix_cell


@checks_query
def matrix(request):
    """
    Tracks × releases, each cell the stage at that release, grouped by area: /api/tracks/
    drawn as a table, with its filters (area, stability, first_release, as_of, promoted_in,
    search). Every track is on one page, up to MATRIX_PAGE_SIZE.
    """
    tracks = read(
        request,
        lists.TRACKS,
        prepare=lambda qs: qs.order_by(Lower("area__name"), Lower("name"), "pk"),
        size=MATRIX_PAGE_SIZE,
    )
    releases = list(Release.objects.published().oldest_first())
    groups = []
    for track in tracks:
        if not groups or groups[-1][0] != track.area:
            groups.append((track.area, []))
        groups[-1][1].append((track, matrix_cells(track, releases)))
    starts = schemes.scheme_starts()
    return render(
        request,
        "pages/matrix.html",
        {
            "releases": releases,
            # Where PyTorch's stage scheme changed (not where the catalog's first one begins).
            "columns": [
                (release, starts.get(release.version) if index else None)
                for index, release in enumerate(releases)
            ],
            "page": tracks,
            "groups": groups,
            "areas": Area.objects.published().order_by(Lower("name")),
            "area": request.GET.get("area", ""),
            "stability": request.GET.get("stability", ""),
            "first_release": request.GET.get("first_release", ""),
            "stages": STAGE_COLUMNS,
            "words": [
                (value, letter, letter + rest) for value, (letter, rest) in CELL_WORDS.items()
            ],
            "query": other_pages(request).urlencode(),
            "api_url": api_url("track-list", request.GET),
        },
    )


@checks_query
def compare_page(request):
    """/api/compare/ as a page: with no query, the form; with one, the API's checks first."""
    releases = list(Release.objects.published().oldest_first())
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
    page = read(request, lists.FEATURES, prepare=lambda qs: qs.select_related("release", "area"))
    # Read as the API's FilterSet reads a query: a choice's repeats (the form's checkboxes) joined.
    facets = feature_facets(request.GET, list(FACET_FIELDS))
    chosen = {name: set(values_of(request.GET, name)) for name in FACET_FIELDS}
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
    query = other_pages(request)
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


@checks_query
def graduation(request):
    """
    How long tracks take to become stable, and which have kept the same pre-stable stage for
    ``stuck_for`` releases or more (checked as /api/stats/graduation/ checks it; default
    stats.DEFAULT_STUCK_FOR): two charts, each with its numbers as a table. Three queries.
    """
    with memory.letting_go(GraduationFilterSet(request.GET)) as filterset:
        reject_bad_query(request.GET, {"stuck_for"}, filterset.errors or None)
        stuck_for = filterset.form.cleaned_data.get("stuck_for") or stats.DEFAULT_STUCK_FOR
    positions = stats.release_positions()
    standings = stats.standings(Track.objects.for_api(), positions)
    graduated = sorted(
        (s for s in standings if s.stable is not None),
        key=lambda s: (-s.releases_to_stable, s.track.name.lower()),
    )
    taken = {}
    for standing in graduated:
        taken[standing.releases_to_stable] = taken.get(standing.releases_to_stable, 0) + 1
    histogram = [(str(n), {"stable": taken.get(n, 0)}) for n in range(max(taken, default=0) + 1)]
    stuck = sorted(
        (s for s in standings if s.is_pre_stable and s.releases_at_stage >= stuck_for),
        key=lambda s: (-s.releases_at_stage, s.track.name.lower()),
    )
    rows = [(s.track.name, s.releases_at_stage, s.stage, track_url(s.track)) for s in stuck]
    return render(
        request,
        "pages/graduation.html",
        {
            "graduated": graduated,
            "histogram": charts.columns(
                histogram,
                ["stable"],
                lambda label, values: f"{values['stable']} tracks stable after {label} releases",
                height=160,
            ),
            "buckets": [(label, values["stable"]) for label, values in histogram],
            "never": sum(1 for s in standings if s.stable is None),
            "stuck": stuck,
            "stuck_chart": charts.rows(rows) if rows else None,
            "stuck_for": stuck_for,
            "default_stuck_for": stats.DEFAULT_STUCK_FOR,
            "newest": next(reversed(positions), None),
            "api_url": api_url("stats-graduation-list"),
            "stuck_url": api_url("stats-graduation-list", {"stuck_for": stuck_for}),
        },
    )


BADGE_TYPES = {"svg": "image/svg+xml; charset=utf-8", "json": "application/json"}


def track_badge(request, slug, kind):
    """
    The badge of the published track ``slug``, "torch.fft | stable since 1.8", as SVG or as
    shields.io's endpoint JSON (``kind``); a grey "unknown" badge with a 404 for a track the
    public does not know. Cached with ETags by releases.web.middleware, as the API is.
    """
    try:
        reject_bad_query(request.GET, set())
    except ValidationError as error:
        return JsonResponse(error.detail, status=400)
    facts = stats.track_badge(slug)
    badge = badges.track_badge(*facts) if facts else badges.unknown_badge(slug[:60])
    status = 200 if facts else 404
    if kind == "json":
        return JsonResponse(badges.endpoint(badge), status=status)
    return HttpResponse(badges.svg(badge), content_type=BADGE_TYPES[kind], status=status)


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

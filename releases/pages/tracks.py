"""
The pages about tracks: the list, a track's timeline, the stage matrix, graduation and
the status badges.
"""

import functools
from urllib.parse import urlencode

from django.db.models.functions import Lower
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import mark_safe
from rest_framework.exceptions import ValidationError

from releases import memory, provenance, schemes, stats
from releases.classification import NO_STAGE, StageChange, stage_moves
from releases.models import (
    Area,
    Release,
    Stability,
    StageSource,
    Track,
)
from releases.pages import badges, charts, timeline, upgrades
from releases.pages.common import (
    STAGE_COLUMNS,
    api_url,
    checks_query,
    other_pages,
    takes_no_query,
)
from releases.queries import reading
from releases.queries.filtersets import GraduationFilterSet
from releases.queries.params import reject_bad_query

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
    NO_STAGE: ("N", "o stage"),
}


@checks_query
def track_list(request):
    """/api/tracks/ as a table: its filters, its pages."""
    return render(
        request,
        "pages/track_list.html",
        {
            "tracks": reading.TRACKS.for_request(request),
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
    axis = [release.version for release in Release.objects.announcing().oldest_first()]
    moves = stage_moves([a.stability for a in track.appearances])
    drawing = timeline.draw(
        axis,
        [
            (
                a.release.version,
                a.stability,
                a.title,
                a.stage_source == StageSource.CLAIM,
                move == StageChange.RELABELLED,
            )
            for a, move in zip(track.appearances, moves, strict=True)
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
            "upgrade_notes": upgrades.notes_of_track(track),
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
    moves = stage_moves([a.stability for a in track.appearances])
    by_version = {
        a.release.version: (a, move) for a, move in zip(track.appearances, moves, strict=True)
    }
    cells, current = [], None
    for release in releases:
        appearance, move = by_version.get(release.version, (None, None))
        if appearance is None:
            cells.append(matrix_cell(current, False))
            continue
        current = appearance.stability or NO_STAGE
        cells.append(matrix_cell(current, True, MATRIX_MARKS.get(move, "")))
    return mark_safe("".join(cells))  # fixed words only: see matrix_cell


@checks_query
def matrix(request):
    """
    Tracks × releases, each cell the stage at that release, grouped by area: /api/tracks/
    drawn as a table, with its filters (area, stability, first_release, as_of, promoted_in,
    search). Every track is on one page, up to MATRIX_PAGE_SIZE.
    """
    asked = {}
    tracks = reading.TRACKS.for_request(
        request,
        prepare=lambda qs: qs.order_by(Lower("area__name"), Lower("name"), "pk"),
        size=MATRIX_PAGE_SIZE,
        asked=asked,
    )
    every_release = list(Release.objects.announcing().oldest_first())
    since = asked.get("seen_since")  # a versions.Version: the releases before it are hidden
    releases = [r for r in every_release if since is None or r.version_key >= since.key]
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
            "every_release": every_release,
            "seen_since": str(since or ""),
            "stages": STAGE_COLUMNS,
            "words": [
                (value, letter, letter + rest) for value, (letter, rest) in CELL_WORDS.items()
            ],
            "query": other_pages(request).urlencode(),
            "api_url": api_url("track-list", request.GET),
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

"""
Which versions go together, for people: /compatibility/ (releases by Python and by CUDA and
ROCm, the companion libraries beside each, and a form that runs /api/check/), and the
release calendar (/calendar.ics): branch cuts, releases and patches, past and planned.
"""

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from icalendar import Calendar, Event
from rest_framework.exceptions import ValidationError

from releases import canonical
from releases.models import Library, PatchRelease, Release, ScheduleDate, SupportKind
from releases.pages import badges
from releases.pages.common import api_url, checks_query, takes_no_query
from releases.pages.tracks import BADGE_TYPES
from releases.queries import install, wheels
from releases.queries.check import CheckForm, check
from releases.queries.params import reject_bad_query
from releases.versions import InvalidVersion, Version

PYTHON_COLOUR = "#2c5d8a"  # white text at 4.5:1 or more


def sorted_versions(values):
    """3.9 before 3.10, 3.13 before 3.13t."""

    def key(text):
        numbers = [int(part) for part in text.rstrip("t").split(".")]
        return (*numbers, text.endswith("t"))

    return sorted(set(values), key=key)


def grid(releases, kinds):
    """
    (columns, rows): the (kind, version) pairs of ``kinds`` any release has, kind by kind in
    the order given, newest version first, and each release that has one with its support of
    each (or None). Newest first both ways (``releases`` come newest first): the releases at the
    top use the versions on the left, so what a reader most likely wants is in view when the
    page opens, on a phone too.
    """
    columns = []
    for kind in kinds:
        found = sorted_versions(
            s.version for release in releases for s in release.public_supports if s.kind == kind
        )
        columns += [(kind, version) for version in reversed(found)]
    rows = []
    for release in releases:
        held = {(s.kind, s.version): s for s in release.public_supports if s.kind in kinds}
        if held:
            rows.append((release, [(column, held.get(column)) for column in columns]))
    return columns, rows


def companions(release):
    """[(library, [(version, torch version)])]: every pairing of the release, its patches' too
    (2.3.0 with torchvision 0.18.0, 2.3.1 with 0.18.1), oldest torch first."""
    paired = {library: [] for library in Library.values}
    for companion in sorted(release.public_companions, key=lambda c: c.torch_version_key):
        paired.setdefault(companion.library, []).append(
            (companion.version, companion.torch_version)
        )
    return [(library, paired[library]) for library in Library.values]


@checks_query
def compatibility(request):
    """Releases by what they run on and pair with, and the check form's verdicts."""
    releases = list(Release.objects.released().with_compatibility().newest_first())
    releases = [release for release in releases if release.public_supports]
    result = command = None
    if request.GET:
        form = CheckForm(request.GET)
        reject_bad_query(request.GET, set(form.fields), None if form.is_valid() else form.errors)
        result = check(form.cleaned_data)
        command = install_answer(form.cleaned_data)
    python_columns, python_rows = grid(releases, ["python"])
    gpu_columns, gpu_rows = grid(releases, ["cuda", "rocm"])
    return render(
        request,
        "pages/compatibility.html",
        {
            "python_columns": python_columns,
            "python_rows": python_rows,
            "gpu_columns": gpu_columns,
            "gpu_rows": gpu_rows,
            "companions": [(release, companions(release)) for release in releases],
            "libraries": Library.values,
            "result": result,
            "install": command,
            "oses": wheels.OSES,
            "arches": wheels.ARCHES,
            "query": request.GET,
            "api_url": api_url("check", request.GET) if result else api_url("release-list"),
        },
    )


def install_answer(query):
    """The install command for the torch and build checked, or why there is none."""
    if not query.get("torch"):
        return None
    try:
        return install.install(query)
    except install.NoWheel as missing:
        return {
            "missing": [m for ms in missing.errors.values() for m in ms],
            "nearest": missing.nearest,
        }


@checks_query
def constraints(request, version):
    """
    A pip constraints file pinning torch ``version`` (a minor: its newest version recorded)
    and the companions paired with it: ``pip install -c URL torch torchvision``.
    """
    takes_no_query(request)
    try:
        asked = Version.parse(version)  # parsed here, once
    except InvalidVersion:
        raise Http404(f"No release {version}.") from None
    found = install.constraints(asked)
    if found is None:
        raise Http404(f"No release {version}.")
    release, torch, pins = found
    lines = [
        f"# torch {torch} and the companion libraries paired with it, from the PyTorch",
        f"# Release Catalog: {page_url(request, release)}",
        *pins,
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


@checks_query
def calendar(request):
    """Every date of the schedule as iCalendar events, each linking its release's page."""
    takes_no_query(request)
    feed = Calendar()
    feed.add("prodid", "-//PyTorch Release Catalog//Release schedule//EN")
    feed.add("version", "2.0")
    feed.add("x-wr-calname", "PyTorch releases")
    dates = (
        ScheduleDate.objects.published()
        .with_outcome()
        .select_related("release")
        .order_by("date", "pk")
    )
    for date in dates:
        tentative = " (tentative)" if date.tentative and date.outcome == "planned" else ""
        tentative += "; it did not ship" if date.outcome == "not_shipped" else ""
        month = " (month only)" if date.precision == "month" else ""
        uid = f"schedule-{date.release.version}-{date.kind}-{date.number}"
        summary = f"PyTorch {date.release.version}: {date.label()} as planned{tentative}{month}"
        feed.add_component(event(request, uid, summary, date, date.date, date.disputed))
    released = Release.objects.released().order_by("version_key")
    for release in released.filter(release_date__isnull=False):
        summary = f"PyTorch {release.version} released"
        feed.add_component(event(request, f"release-{release.version}", summary, release))
    for patch in released_patches(released):
        summary = f"PyTorch {patch.version} released"
        feed.add_component(event(request, f"patch-{patch.version}", summary, patch))
    response = HttpResponse(feed.to_ical(), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = 'inline; filename="pytorch-releases.ics"'
    return response


def page_url(request, release):
    return request.build_absolute_uri(reverse("page-release", args=[release.version]))


def event(request, uid, summary, row, day=None, description=""):
    """
    The event of ``row`` (a schedule date, a release or a patch release), on ``day`` (its
    release date when not given), linking its release's page.
    """
    item = Event()
    item.add("uid", f"{uid}@pytorch-catalog")
    item.add("summary", summary)
    item.add("dtstart", day or row.release_date)
    item.add("dtstamp", row.updated_at)
    item.add("url", page_url(request, getattr(row, "release", None) or row))
    if description:
        item.add("description", description)
    return item


def released_patches(releases):
    return (
        PatchRelease.objects.published()
        .filter(release__in=releases, release_date__isnull=False)
        .select_related("release")
        .order_by("version_key")
    )


def python_range(release):
    """'3.10–3.14' for a release's stable Python builds, or None."""
    stable = sorted_versions(
        s.version
        for s in release.public_supports
        if s.kind == "python" and s.level == "stable" and not s.version.endswith("t")
    )
    return f"{stable[0]}–{stable[-1]}" if stable else None


def python_badge(request, version, kind):
    """
    "python | 3.10–3.14" for a release, as SVG or shields.io's endpoint JSON (``kind``); the
    grey "unknown" badge with a 404 for a release the public does not know.
    """
    try:
        reject_bad_query(request.GET, set())
    except ValidationError as error:
        return JsonResponse(error.detail, status=400)
    try:
        key = Version.parse(version).key
    except InvalidVersion:
        key = None
    release = (
        Release.objects.published().with_compatibility().filter(version_key=key).first()
        if key is not None
        else None
    )
    if release is not None:  # another spelling of its version: one URL per badge
        moved = canonical.redirect_to_canonical(request, release, version, f"badge-python-{kind}")
        if moved:
            return moved
    shown = python_range(release) if release is not None else None
    badge = (
        badges.Badge("python", shown, PYTHON_COLOUR) if shown else badges.unknown_badge("python")
    )
    status = 200 if shown else 404
    if kind == "json":
        return JsonResponse(badges.endpoint(badge), status=status)
    return HttpResponse(badges.svg(badge), content_type=BADGE_TYPES[kind], status=status)


# Each kind under its own name, in the order declared; a few shorter or plural on the page.
KIND_LABELS = dict(SupportKind.choices) | {
    "cxx": "C++",
    "cuda_arch": "CUDA architectures",
    "os": "Operating systems",
}


def runs_on(release):
    """[(label, supports)] of a release (with_compatibility's), in the order people ask."""
    grouped = {}
    for support in release.public_supports:
        grouped.setdefault(support.kind, []).append(support)
    return [(label, grouped[kind]) for kind, label in KIND_LABELS.items() if kind in grouped]


def schedule_news():
    """The next planned release (with its schedule), for the home page, or None."""
    return Release.objects.published().filter(planned=True).order_by("version_key").first()


def newest_out(latest):
    """The newest release out, where it is newer than ``latest`` (announced): else None."""
    newest = Release.objects.released().newest_first().first()
    if latest is None or newest is None or newest.version_key <= latest.version_key:
        return None
    return newest


def latest_patch(version):
    return (
        PatchRelease.objects.published()
        .filter(release__version=version)
        .order_by("-version_key")
        .first()
    )

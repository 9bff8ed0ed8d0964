"""
Editors' work is never lost: every write path is recorded, reported to mirrors by
/api/changes/ and updated_since, replayable into an empty database, and safe across restarts.
"""

import json
import shutil
import textwrap

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from releases import revision, tracks, writes
from releases.declarations import public_models
from releases.models import Area, AreaAlias, Feature, Link, Release, Stability, Track
from tests.conftest import SEED_RELEASES, http
from tests.test_fixtures import objects_in_fixtures

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

FX = "python-code-transformations-with-fx"
FFT_17 = "numpy-compatible-torch-fft-module"

NEW_POST = """\
---
title: 'PyTorch 1.9 Release, with two more things'
date: 2021-06-15
---

# Frontend APIs

## [Beta] A late addition

Added after the release went out. [Docs](https://example.org/late)
"""


def read_all_changes(server, **params):
    """Every entry of /api/changes/, page by page through the next links, as a mirror does."""
    entries, url = [], "/api/changes/"
    response = http(server, url, params={"page_size": 50, **params})
    while True:
        assert response.status == 200, response.body
        body = response.json()
        entries += body["results"]
        if not body["next"]:
            return entries, body["cursor"]
        response = http(server, body["next"].split(server.url, 1)[1])


def listed(server, path, since):
    return http(server, path, params={"updated_since": since.isoformat(), "page_size": 100}).json()


# --- every write path, reported twice --------------------------------------------------------


def admin_action(client, model, action, objects, **extra):
    url = reverse(f"admin:releases_{model}_changelist")
    data = {"action": action, "_selected_action": [obj.pk for obj in objects], **extra}
    response = client.post(url, data)
    assert response.status_code in (200, 302), response.content[:500]


def feature(version, slug):
    return Feature.objects.get(release__version=version, slug=slug)


def write_save(client, tmp_path):
    torch_fft = feature("1.8", "torch-fft-support-for-high-performance-numpy-style-ffts")
    torch_fft.summary = "Edited."
    torch_fft.save()
    return ("feature", "updated", ["1.8", torch_fft.slug]), ("/api/features/", torch_fft.slug)


def write_update(client, tmp_path):
    Feature.objects.filter(slug="torch-package").update(stability=Stability.STABLE)
    return ("feature", "updated", ["1.9", "torch-package"]), ("/api/features/", "torch-package")


def write_bulk_create(client, tmp_path):
    release = Release.objects.get(version="1.9")
    area = Track.objects.get(slug="torch-package").area
    track = Track.objects.create(name="Bulk made", slug="bulk-made", area=area)
    (made,) = Feature.objects.bulk_create(
        [
            Feature(
                release=release,
                title="Bulk made",
                slug="bulk-made",
                area=area,
                track=track,
                position=99,
            )
        ]
    )
    return ("feature", "created", ["1.9", "bulk-made"]), ("/api/features/", "bulk-made")


def write_bulk_update(client, tmp_path):
    package = feature("1.9", "torch-package")
    package.title = "Packaging, in bulk"
    Feature.objects.bulk_update([package], ["title"])
    return ("feature", "updated", ["1.9", "torch-package"]), ("/api/features/", "torch-package")


def write_delete(client, tmp_path):
    link = Link.objects.filter(feature__slug="torch-package").first()
    key = [*link.natural_key()]
    link.delete()
    return ("link", "deleted", key), ("/api/features/", "torch-package")


def write_queryset_delete(client, tmp_path):
    Link.objects.filter(feature__slug="torch-package").delete()
    return ("link", "deleted", None), ("/api/releases/", "1.9")


def write_publish_action(client, tmp_path):
    release = Release.objects.get(version="1.6")
    Release.objects.filter(pk=release.pk).update(is_published=False)
    since = timezone.now()
    admin_action(client, "release", "publish", [release], confirmed="yes")
    # To the public, a release published is a release created, and so are its features.
    return ("release", "created", ["1.6"]), ("/api/releases/", "1.6"), since


def write_stability_action(client, tmp_path):
    package = feature("1.9", "torch-package")
    admin_action(client, "feature", "mark_prototype", [package])
    return ("feature", "updated", ["1.9", "torch-package"]), ("/api/features/", "torch-package")


def write_unpublish_action(client, tmp_path):
    admin_action(
        client, "release", "unpublish", [Release.objects.get(version="1.6")], confirmed="yes"
    )
    return ("release", "deleted", ["1.6"]), None  # gone from the public lists: a tombstone


def write_review_action(client, tmp_path):
    area = Area.objects.get(slug="frontend-apis")
    Area.objects.filter(pk=area.pk).update(needs_review=True)
    since = timezone.now()
    admin_action(client, "area", "mark_reviewed", [area])
    return ("area", "updated", ["frontend-apis"]), None, since


def write_clear_stability_action(client, tmp_path):
    admin_action(client, "feature", "clear_stability", [feature("1.9", "torch-package")])
    return ("feature", "updated", ["1.9", "torch-package"]), ("/api/features/", "torch-package")


def write_merge(client, tmp_path):
    package = feature("1.9", "torch-package")
    target = Track.objects.get(slug="torch-fft")
    admin_action(client, "feature", "merge_into_track", [package], apply="1", track=target.pk)
    return ("track", "deleted", ["torch-package"]), ("/api/features/", "torch-package")


def write_split(client, tmp_path):
    fft = feature("1.7", FFT_17)
    admin_action(client, "feature", "split_into_own_track", [fft])
    return ("track", "created", None), ("/api/features/", fft.slug)


def write_release_version(client, tmp_path):
    release = Release.objects.get(version="1.8")
    release.version = "1.8.0"
    release.save()
    return ("release", "updated", ["1.8.0"]), (
        "/api/features/",
        "python-code-transformations-with-fx",
    )


def write_area_rename(client, tmp_path):
    area = Area.objects.get(slug="frontend-apis")
    area.name = "Front-end APIs"
    area.save()
    return ("area", "updated", ["frontend-apis"]), (
        "/api/features/",
        "python-code-transformations-with-fx",
    )


def write_track_slug(client, tmp_path):
    track = Track.objects.get(slug="torch-fft")
    track.slug = "fast-fourier"
    track.save()
    fft = FFT_17
    return ("track", "updated", ["fast-fourier"]), ("/api/features/", fft)


def write_import(client, tmp_path):
    post = tmp_path / "late.md"
    post.write_text(textwrap.dedent(NEW_POST), encoding="utf-8")
    call_command("import_post", str(post), verbosity=0)
    approve = Feature.objects.filter(slug="a-late-addition")
    admin_action(client, "feature", "approve", approve)
    return ("feature", "created", ["1.9", "a-late-addition"]), ("/api/features/", "a-late-addition")


def write_load_catalog(client, tmp_path, settings):
    folder = tmp_path / "fixtures"
    shutil.copytree(settings.BASE_DIR / "fixtures", folder)
    data = json.loads((folder / "pytorch-1.9.json").read_text())
    for item in data:
        if item["model"] == "releases.release":
            item["fields"]["version"] = "1.9.1"
        elif item["model"] == "releases.feature":
            item["fields"]["release"] = ["1.9.1"]
    data = [item for item in data if item["model"] != "releases.link"]
    (folder / "pytorch-1.9.1.json").write_text(json.dumps(data))
    settings.BASE_DIR = tmp_path
    call_command("load_catalog", verbosity=0)
    return ("release", "created", ["1.9.1"]), ("/api/releases/", "1.9.1")


WRITES = [
    write_save,
    write_update,
    write_bulk_create,
    write_bulk_update,
    write_delete,
    write_queryset_delete,
    write_publish_action,
    write_stability_action,
    write_clear_stability_action,
    write_unpublish_action,
    write_review_action,
    write_merge,
    write_split,
    write_release_version,
    write_area_rename,
    write_track_slug,
    write_import,
    write_load_catalog,
]


@pytest.mark.parametrize("write", WRITES, ids=[w.__name__[6:] for w in WRITES])
def test_every_write_path_is_reported_by_the_change_log_and_updated_since(
    live_catalog, client, tmp_path, settings, write
):
    client.force_login(User.objects.create_superuser("root", password="x"))
    since = timezone.now()
    args = (client, tmp_path, settings) if write is write_load_catalog else (client, tmp_path)
    expected, shown, *moved = write(*args)
    since = moved[0] if moved else since

    entries, _ = read_all_changes(live_catalog, since=since.isoformat())
    kind, action, key = expected
    assert any(
        e["type"] == kind and e["action"] == action and (key is None or e["key"] == key)
        for e in entries
    ), entries
    if shown is not None:  # what the public lists show of it changed
        path, item = shown
        items = listed(live_catalog, path, since)["results"]
        field = "version" if path == "/api/releases/" else "slug"
        assert item in [i[field] for i in items], items


def test_the_change_log_records_who_and_why(live_catalog, client):
    editor = User.objects.create_superuser("ada", password="x")
    client.force_login(editor)
    package = feature("1.9", "torch-package")
    admin_action(client, "feature", "mark_prototype", [package])
    record = Feature.history.filter(id=package.pk).latest("history_id")
    assert record.history_user == editor and "marked Prototype" in record.history_change_reason
    assert record.history_type == "~" and record.stability == Stability.PROTOTYPE
    loaded = Release.history.get(version="1.6")
    assert loaded.history_change_reason == "load_catalog pytorch-1.6.json"


def test_deletions_are_tombstones_and_keys_that_change_are_named(live_catalog):
    since = timezone.now()
    link = Link.objects.missing().filter(feature__release__version="1.7").first()
    old_key = list(link.natural_key())
    link.url = "https://example.org/filled"
    link.save()
    gone = feature("1.9", "torch-package")
    gone.delete()
    entries, _ = read_all_changes(live_catalog, since=since.isoformat())
    filled = next(e for e in entries if e["type"] == "link" and e["action"] == "updated")
    assert filled["previous_key"] == old_key and filled["key"][-1] == "https://example.org/filled"
    tomb = next(e for e in entries if e["type"] == "feature" and e["action"] == "deleted")
    assert tomb["object"] is None and tomb["tombstone"]["key"] == ["1.9", "torch-package"]
    # Its track had no other published appearance: it leaves the public catalog too.
    deleted = [e["type"] for e in entries if e["action"] == "deleted"]
    assert set(deleted) == {"feature", "link", "track"}
    times = [e["time"] for e in entries]
    assert times == sorted(times)


def test_a_mirror_resumes_from_its_cursor(live_catalog):
    first, cursor = read_all_changes(live_catalog)
    assert len(first) > 200  # the fixtures, as they were loaded
    again, same = read_all_changes(live_catalog, cursor=cursor)
    assert again == [] and same == cursor
    feature("1.9", "torch-package").delete()
    later, _ = read_all_changes(live_catalog, cursor=cursor)
    # What refers to others goes first: a mirror never holds a dangling reference.
    links = len(later) - 2
    assert [e["type"] for e in later] == ["link"] * links + ["feature", "track"]


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"since": "yesterday"}, "since"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"page_size": "0"}, "page_size"),
        ({"since": "2026-01-01T00:00:00Z", "cursor": "abc"}, "cursor"),
        ({"sinse": "2026-01-01T00:00:00Z"}, "sinse"),
    ],
)
def test_bad_change_log_queries_are_400s_naming_the_parameter(live_catalog, params, parameter):
    response = http(live_catalog, "/api/changes/", params=params)
    assert response.status == 400 and parameter in response.json()


# --- replay ------------------------------------------------------------------------------------

MIRRORED = dict(public_models())
REFERENCE_TYPES = {"area": "area", "release": "release", "track": "track", "feature": "feature"}


def find(kind, key):
    model = MIRRORED[kind]
    try:
        return model.objects.get_by_natural_key(*key)
    except model.DoesNotExist:
        return None


def replay(entry):
    """What a mirror does with one change-log entry, by natural keys alone."""
    model = MIRRORED[entry["type"]]
    if entry["action"] == "deleted":
        found = find(entry["type"], entry["key"])
        if found is not None:
            found.delete()
        return
    obj = find(entry["type"], entry["key"])
    if obj is None and entry["previous_key"]:
        obj = find(entry["type"], entry["previous_key"])
    obj = obj or model()
    for name, value in entry["object"].items():
        field = model._meta.get_field(name)
        if field.is_relation:
            value = find(REFERENCE_TYPES[name], value) if value is not None else None
        setattr(obj, name, value)
    obj.save()


def catalog_state():
    """The public catalog as a mirror sees it: each object's payload, by natural key."""
    state = {}
    for kind, model in MIRRORED.items():
        for obj in model.objects.published():
            payload = {}
            for name in model.carried_fields():
                value = getattr(obj, name)
                payload[name] = (
                    list(value.natural_key()) if hasattr(value, "natural_key") else value
                )
            state[(kind, tuple(obj.natural_key()))] = json.loads(json.dumps(payload, default=str))
    return state


def test_replaying_the_change_log_into_an_empty_catalog_rebuilds_it(live_catalog, tmp_path):
    # A history with every kind of change in it.
    release = Release.objects.get(version="1.8")
    release.version = "1.8.0"
    release.save()
    filled = list(Link.objects.missing().filter(feature__release__version="1.7"))
    for number, link in enumerate(filled):
        link.url = f"https://example.org/filled/{number}"
    Link.objects.bulk_update(filled, ["url"])
    feature("1.9", "torch-package").delete()
    tracks.merge(
        [feature("1.7", FFT_17)],
        into=Track.objects.get(slug="torch-linalg"),
    )
    tracks.split([feature("1.7", FFT_17)])
    area = Area.objects.get(slug="frontend-apis")
    area.name = "Front-end APIs"
    area.save()
    AreaAlias.objects.create(area=area, name="Front-end interfaces")
    Feature.objects.filter(stability=Stability.PROTOTYPE).update(stability=Stability.BETA)
    post = tmp_path / "late.md"
    post.write_text(textwrap.dedent(NEW_POST), encoding="utf-8")
    call_command("import_post", str(post), verbosity=0)

    source = catalog_state()
    entries, _ = read_all_changes(live_catalog)

    Release.objects.all().delete()
    Track.objects.all().delete()
    Area.objects.all().delete()
    assert catalog_state() == {}
    for entry in entries:
        replay(entry)
    assert catalog_state() == source


# --- one way to track changes ------------------------------------------------------------------


@pytest.fixture
def committed_catalog(transactional_db):
    """The seed catalog, committed: each test's writes are transactions of their own."""
    call_command("load_catalog", verbosity=0)


def test_the_revision_commits_with_the_write_it_announces(committed_catalog):
    """
    The revision lives in the database and is rewritten in the write's own transaction: a
    write that rolls back (a savepoint or the whole transaction) takes its revision back, and
    one that commits changes it whatever happens to a cache.
    """
    before = revision.current()
    try:
        with transaction.atomic():
            Feature.objects.filter(slug="torch-package").update(title="Changed, then undone")
            assert revision.current() != before  # this transaction sees its own change
            raise RuntimeError
    except RuntimeError:
        pass
    assert revision.current() == before  # rolled back, with the write it announced
    with transaction.atomic():
        try:
            with transaction.atomic():
                Feature.objects.filter(slug="torch-linalg").update(title="Rolled back")
                raise RuntimeError
        except RuntimeError:
            pass
        assert revision.current() == before
        for stability in (Stability.STABLE, Stability.BETA, Stability.PROTOTYPE):
            Feature.objects.filter(slug="torch-package").update(stability=stability)
        feature("1.9", "torch-package").delete()
    assert revision.current() != before


def test_a_write_that_changes_nothing_writes_nothing(committed_catalog):
    package = feature("1.9", "torch-package")
    records, token = Feature.history.count(), revision.current()
    package.save()
    Feature.objects.filter(pk=package.pk).update(title=package.title)
    Feature.objects.bulk_update([package], ["title"])
    assert Feature.history.count() == records and revision.current() == token
    assert feature("1.9", "torch-package").updated_at == package.updated_at
    package.title = "Changed"
    package.save()
    assert Feature.history.count() == records + 1 and revision.current() != token


def test_a_reimport_that_changes_nothing_keeps_the_revision(committed_catalog, tmp_path):
    post = tmp_path / "post.md"
    post.write_text(textwrap.dedent(NEW_POST).replace("1.9", "4.4"), encoding="utf-8")
    call_command("import_post", str(post), verbosity=0)
    records = sum(model.history.count() for model in MIRRORED.values())
    token = revision.current()
    call_command("import_post", str(post), verbosity=0)
    assert revision.current() == token
    assert sum(model.history.count() for model in MIRRORED.values()) == records


# --- safe restarts -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_restart_keeps_every_edit_and_duplicates_nothing(catalog):
    torch_fft = feature("1.8", "torch-fft-support-for-high-performance-numpy-style-ffts")
    torch_fft.summary = "An editor's own words."
    torch_fft.save()
    missing = list(Link.objects.missing().order_by("pk"))
    missing[0].url = "https://example.org/filled-in"
    missing[0].save()
    missing[1].delete()
    removed = feature("1.9", "torch-package")
    removed_links = removed.links.count()
    removed.delete()
    tracks.merge(
        [feature("1.7", FFT_17)],
        into=Track.objects.get(slug="torch-linalg"),
    )

    def counts(versions=None):
        releases = Release.objects.filter(version__in=versions) if versions else Release.objects
        return (
            releases.count(),
            Feature.objects.filter(release__in=releases.all()).count(),
            Link.objects.filter(feature__release__in=releases.all()).count(),
        )

    held = counts(SEED_RELEASES)

    # What `make run` does on every start: a deployment that held the seed releases gets the
    # other releases of fixtures/, and keeps its own.
    call_command("migrate", verbosity=0)
    call_command("load_catalog", verbosity=0)

    assert feature("1.8", torch_fft.slug).summary == "An editor's own words."
    assert Link.objects.get(pk=missing[0].pk).url == "https://example.org/filled-in"
    assert not Link.objects.filter(pk=missing[1].pk).exists()
    assert not Feature.objects.filter(release__version="1.9", slug="torch-package").exists()
    assert feature("1.7", FFT_17).track.slug == "torch-linalg"
    assert counts(SEED_RELEASES) == held
    # Every release of fixtures/, less what the editor deleted: torch.package with its links,
    # and a missing link.
    assert counts() == (
        objects_in_fixtures("releases.release"),
        objects_in_fixtures("releases.feature") - 1,
        objects_in_fixtures("releases.link") - 1 - removed_links,
    )
    # The seed posts promised ten links they never gave (no other release lacks one): one
    # filled in, one deleted.
    assert Link.objects.missing().count() == 10 - 2
    everything = counts()

    # A second start adds nothing.
    call_command("load_catalog", verbosity=0)
    assert counts() == everything


@pytest.mark.django_db
def test_reset_asks_first_and_restores_the_fixtures(catalog, monkeypatch):
    feature("1.9", "torch-package").delete()
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(Exception, match="reset cancelled"):
        call_command("load_catalog", "--reset", verbosity=0)
    assert not Feature.objects.filter(slug="torch-package").exists()
    call_command("load_catalog", "--reset", "--no-input", verbosity=0)
    assert feature("1.9", "torch-package")
    # Every release of fixtures/, not only the seeds the test started with.
    assert Release.objects.count() == objects_in_fixtures("releases.release")
    assert Feature.objects.count() == objects_in_fixtures("releases.feature")
    # The history keeps what the reset replaced, and says who did what.
    records = Feature.history.filter(slug="torch-package").order_by("history_id")
    assert [(r.history_type, r.history_change_reason) for r in records] == [
        ("+", "load_catalog pytorch-1.9.json"),
        ("-", ""),
        ("+", "load_catalog pytorch-1.9.json"),
    ]
    linalg = Feature.history.filter(slug="torch-linalg", history_type="-").get()
    assert linalg.history_change_reason == "load_catalog --reset"


# --- drafts stay drafts --------------------------------------------------------------------------


def test_a_post_adding_to_a_published_release_waits_for_approval(live_catalog, tmp_path):
    post = tmp_path / "late.md"
    post.write_text(textwrap.dedent(NEW_POST), encoding="utf-8")
    from io import StringIO

    out = StringIO()
    call_command("import_post", str(post), stdout=out)
    assert "1 new feature(s) await an editor's approval" in out.getvalue()
    late = Feature.objects.get(slug="a-late-addition")
    assert late.needs_approval
    public = http(live_catalog, "/api/features/", params={"release": "1.9", "page_size": 100})
    assert "a-late-addition" not in [item["slug"] for item in public.json()["results"]]
    release = http(live_catalog, "/api/releases/1.9/").json()
    assert release["feature_count"] == 18 and len(release["features"]) == 18
    assert http(live_catalog, "/api/links/", params={"release": "1.9"}).json()["count"] == 38

    with writes.acting_as("approved in a test"):
        Feature.objects.filter(pk=late.pk).update(needs_approval=False)
    public = http(live_catalog, "/api/features/", params={"release": "1.9", "page_size": 100})
    assert "a-late-addition" in [item["slug"] for item in public.json()["results"]]


def test_importing_with_publish_approves_what_the_post_adds(live_catalog, tmp_path):
    """--publish is the importer's own approval: a companion post's features go public."""
    post = tmp_path / "late.md"
    post.write_text(textwrap.dedent(NEW_POST), encoding="utf-8")
    from io import StringIO

    out = StringIO()
    call_command("import_post", str(post), "--publish", stdout=out)
    assert "await an editor's approval" not in out.getvalue()
    assert not Feature.objects.get(slug="a-late-addition").needs_approval
    public = http(live_catalog, "/api/features/", params={"release": "1.9", "page_size": 100})
    assert "a-late-addition" in [item["slug"] for item in public.json()["results"]]

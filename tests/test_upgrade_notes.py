"""
Issue 33: upgrading from X to Y. The upgrade notes of every covered release against the answer
key of its release notes; the API, the pages and the feed; the importer on samples in our own
words; drafts kept private.
"""

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from releases.models import Release, UpgradeAPI, UpgradeNote
from releases.versions import Version

KEYS = Path(__file__).parent / "answer_keys"
COVERED = ["2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.14"]
ATOM = "{http://www.w3.org/2005/Atom}"


def key_of(version):
    return json.loads((KEYS / f"release-notes-{version}.json").read_text(encoding="utf-8"))


# --- the curated notes against the answer keys ---------------------------------------------


@pytest.mark.parametrize("version", COVERED)
def test_every_entry_of_the_release_notes_is_a_curated_note(full_catalog, version):
    """Each BC-breaking change, removal and deprecation the notes list is in the catalog, with
    its kind, area and pull requests; nothing else is. (Editors curated the APIs and the
    replacements; docs/upgrade-notes.md gives their decisions.)"""
    key = key_of(version)
    notes = {
        note.source_line: note
        for note in UpgradeNote.objects.published().filter(release__version=version)
    }
    assert sorted(notes) == sorted(entry["line"] for entry in key["entries"])
    source = key["source"].get("url") or key["source"]["release_page"]
    for entry in key["entries"]:
        note = notes[entry["line"]]
        assert (note.kind, note.pull_requests, note.group != "") == (
            entry["kind"],
            entry["prs"],
            bool(entry.get("group")),
        ), entry
        if entry["area"]:  # the notes' area as written
            assert (note.area, note.area_reason) == (entry["area"], ""), entry
        else:  # where the notes give none, an editor's, with the reason (issue 41)
            assert note.area and len(note.area_reason) > 40, entry
        assert note.section == entry["section"] and note.source_url == source
        assert note.summary and len(note.summary) <= 200 and "\n" not in note.summary
        assert note.summary != entry["label"]  # the summary is an editor's, not the key's


def test_the_covered_releases_are_the_keyed_ones(full_catalog):
    covered = UpgradeNote.objects.published().values_list("release__version", flat=True)
    assert set(covered) == set(COVERED)
    assert sorted(p.name for p in KEYS.glob("release-notes-*.json")) == sorted(
        f"release-notes-{v}.json" for v in COVERED
    )


def test_deprecations_and_their_removals_are_linked(full_catalog):
    pairs = {
        (n.removes.release.version, n.removes.slug, n.release.version)
        for n in UpgradeNote.objects.published().exclude(removes=None)
    }
    assert ("2.9", "pr-158203", "2.11") in pairs  # torch.export.export_for_training
    assert ("2.7", "pr-146425", "2.9") in pairs  # torch.onnx.dynamo_export
    for note in UpgradeNote.objects.exclude(removes=None):
        assert note.removes.kind == "deprecation" and note.kind != "deprecation"
        assert note.removes.release.version_key < note.release.version_key


# --- the pages ----------------------------------------------------------------------------


def test_upgrading_from_2_8_to_2_14_lists_the_onnx_and_jit_deprecations(full_catalog, client):
    body = client.get("/upgrade/?from=2.8&to=2.14").content.decode()
    assert "torch.onnx.export(dynamic_axes=...)" in body
    assert 'href="https://github.com/pytorch/pytorch/pull/165769"' in body  # dynamic_axes
    assert "<code>torch.jit</code>" in body
    assert 'href="https://github.com/pytorch/pytorch/pull/167669"' in body  # torch.jit
    # Release by release, oldest first (issue 43), each with its breaking changes first, then
    # removals, then deprecations.
    releases = re.findall(r'<h2 id="release-([0-9.]+)">', body)
    assert releases == sorted(releases, key=Version.parse) and releases[0] == "2.9"
    ten = body[body.index('<h2 id="release-2.10">') : body.index('<h2 id="release-2.11">')]
    kinds = re.findall(r'<h3 id="release-2\.10-([a-z-]+)">', ten)
    assert len(kinds) >= 2 and kinds == sorted(
        kinds, key=["bc-breaking", "removal", "deprecation"].index
    )
    # The page starts with its contents: each release, its kinds and areas, each a link.
    contents = body[body.index('id="contents"') : body.index('<h2 id="release-2.9">')]
    assert [v for v in re.findall(r'href="#release-([0-9.]+)"', contents)] == releases
    assert re.search(r'href="#release-2\.\d+-deprecation-\d+">ONNX</a>', contents)
    # Nothing of 2.8 itself: the notes of the releases after the one you run.
    assert '<span class="version">2.8</span>' not in body


def test_the_checklist_counts_what_the_api_counts(full_catalog, client):
    body = client.get("/upgrade/?from=2.5&to=2.14&kind=deprecation").content.decode()
    api = client.get("/api/upgrade/?from=2.5&to=2.14&kind=deprecation").json()
    assert f'<p class="count">{api["count"]} notes' in body
    assert (
        api["count"]
        == UpgradeNote.objects.filter(
            kind="deprecation",
            release_version_key__gt=Release.objects.get(version="2.5").version_key,
        ).count()
    )


def test_deprecations_show_their_removal_or_not_yet(full_catalog, client):
    body = client.get("/deprecations/").content.decode()
    row = body[body.index('id="2.9-pr-158203"') :]
    row = row[: row.index("</tr>")]
    assert "torch.export.export_for_training" in row and 'href="/releases/2.11/"' in row
    jit = body[body.index('id="2.10-pr-167669"') :]
    assert "not yet" in jit[: jit.index("</tr>")]


def test_still_present_in_a_version(full_catalog, client):
    def listed(version):
        body = client.get(f"/deprecations/?present_in={version}").content.decode()
        return 'id="2.9-pr-158203"' in body

    assert listed("2.9") and listed("2.10")  # deprecated in 2.9, still there
    assert not listed("2.11") and not listed("2.8")  # removed in 2.11; not deprecated yet
    assert client.get("/deprecations/?present_in=1.99").status_code == 400


def test_an_apis_history_across_releases(full_catalog, client):
    body = client.get("/upgrade/?api=torch.onnx").content.decode()
    versions = {note.release.version for note in UpgradeNote.objects.naming("torch.onnx")}
    assert {"2.5", "2.7", "2.9", "2.10"} <= versions
    for version in versions:
        assert f'<span class="version">{version}</span>' in body
    search = client.get("/features/?search=torch.onnx").content.decode()
    assert 'href="/upgrade/?api=torch.onnx"' in search


def test_release_and_compare_pages_link_the_checklist(full_catalog, client):
    release = client.get("/releases/2.10/").content.decode()
    assert 'href="/upgrade/?from=2.9&amp;to=2.10"' in release
    assert 'href="/feeds/releases/2.10/upgrade/"' in release
    compare = client.get("/compare/?from=2.5&to=2.14").content.decode()
    assert 'href="/upgrade/?from=2.5&amp;to=2.14"' in compare
    track = client.get("/tracks/torchscript/").content.decode()
    assert "2.10" in track and "What its releases' notes say to change" in track


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("from=2.14&to=2.8", "to"),
        ("from=9.9", "from"),
        ("kind=breaking", "kind"),
        ("api=%20torch", "api"),
        ("colour=red", "colour"),
    ],
)
def test_the_checklist_refuses_what_the_api_refuses(full_catalog, client, query, parameter):
    page = client.get(f"/upgrade/?{query}")
    api = client.get(f"/api/upgrade/?{query}")
    assert page.status_code == api.status_code == 400
    assert parameter in api.json() and parameter in page.content.decode()


# --- the API ------------------------------------------------------------------------------


def test_upgrading_from_2_7_to_2_8_lists_every_entry_of_its_final_notes(full_catalog, client):
    """Issue 41: 2.8's notes as published (the ONNX changes the draft lacked), each change of
    a group a note of its own, its own pull request first."""
    key = key_of("2.8")
    body = client.get("/api/upgrade/?from=2.7&to=2.8&page_size=100").json()
    listed = {
        (item["pull_requests"][0]["number"] if item["pull_requests"] else None, item["kind"])
        for item in body["results"]
    }
    assert body["count"] == len(key["entries"]) == 27
    assert listed == {(e["prs"][0] if e["prs"] else None, e["kind"]) for e in key["entries"]}
    onnx = [item for item in body["results"] if item["area"] == "ONNX"]
    assert len(onnx) == 4 and sum(item["area_reason"] is not None for item in onnx) == 1
    grouped = [item for item in body["results"] if item["group"]]
    assert len(grouped) == 9
    assert {item["kind"] for item in grouped} == {"bc-breaking", "deprecation"}


def test_every_upgrade_note_has_an_area(full_catalog, client):
    assert not UpgradeNote.objects.filter(area_slug="general").exists()
    # ?area= offers only the areas notes are filed under: none is left without one.
    response = client.get("/api/upgrade/?area=general")
    assert response.status_code == 400 and "general" in response.content.decode()


def test_the_api_filters_by_kind_area_and_api_prefix(full_catalog, client):
    onnx = client.get("/api/upgrade/?api=torch.onnx&page_size=100").json()
    assert onnx["count"] > 5
    for item in onnx["results"]:
        assert any(name.lower().startswith("torch.onnx") for name in item["apis"]), item
    assert client.get("/api/upgrade/?api=TORCH.ONNX").json()["count"] == onnx["count"]
    removals = client.get("/api/upgrade/?kind=removal&area=onnx&page_size=100").json()
    assert removals["count"] and all(
        (i["kind"], i["area_slug"]) == ("removal", "onnx") for i in removals["results"]
    )
    none = client.get("/api/upgrade/?api=torch.onnx&from=2.12&to=2.13").json()
    assert all(i["release"] in ("2.13",) for i in none["results"])


def test_an_item_says_what_became_of_a_deprecation(full_catalog, client):
    items = client.get("/api/upgrade/?release=2.9&kind=deprecation").json()["results"]
    export = next(i for i in items if i["slug"] == "pr-158203")
    assert export["removed_in"] == "2.11" and export["apis"] == ["torch.export.export_for_training"]
    assert export["pull_requests"] == [
        {"number": 158203, "url": "https://github.com/pytorch/pytorch/pull/158203"}
    ]
    assert export["source"]["link"].endswith("2.9.0/final.md?plain=1#L251")
    removal = client.get("/api/upgrade/?release=2.11&api=torch.export.export_for").json()
    assert removal["results"][0]["removes"] == {"release": "2.9", "slug": "pr-158203"}
    jit = client.get("/api/upgrade/?release=2.10&api=torch.jit").json()["results"][0]
    assert jit["removed_in"] is None and jit["track"] == "torchscript"


def test_the_list_reads_a_bounded_number_of_queries(
    full_catalog, client, uncached, django_assert_max_num_queries
):
    for size in (5, 100):
        with django_assert_max_num_queries(8):
            response = client.get(f"/api/upgrade/?from=2.5&to=2.14&page_size={size}")
        assert len(response.json()["results"]) == size


def test_csv_lists_every_note(full_catalog, client):
    response = client.get("/api/upgrade/?format=csv&from=2.8")
    rows = b"".join(response.streaming_content).decode().splitlines()
    assert rows[0].startswith("release,slug,kind,area,area_slug,summary,apis")
    assert len(rows) - 1 == client.get("/api/upgrade/?from=2.8").json()["count"]


def test_the_schema_states_the_upgrade_list(full_catalog, client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    names = {p["name"] for p in schema["paths"]["/api/upgrade/"]["get"]["parameters"]}
    assert {"from", "to", "kind", "area", "api", "release", "page", "cursor"} <= names


# --- the feed -----------------------------------------------------------------------------


def test_a_releases_upgrade_notes_as_a_feed(full_catalog, client):
    response = client.get("/feeds/releases/2.10/upgrade/")
    assert response.status_code == 200
    feed = ET.fromstring(response.content)
    entries = feed.findall(f"{ATOM}entry")
    assert len(entries) == UpgradeNote.objects.filter(release__version="2.10").count()
    titles = [entry.find(f"{ATOM}title").text for entry in entries]
    assert any("torch.jit" in title for title in titles)
    assert client.get("/feeds/releases/9.9/upgrade/").status_code == 404
    assert client.get("/feeds/releases/2.10/upgrade/?x=1").status_code == 400


# --- drafts stay private ------------------------------------------------------------------


def test_a_note_waiting_for_review_reaches_no_public_surface(full_catalog, client, uncached):
    from django.utils import timezone

    since = timezone.now().isoformat()
    release = Release.objects.get(version="2.10")
    note = UpgradeNote.objects.create(
        release=release, slug="pr-999001", kind="deprecation", area="Secret Area",
        needs_review=True, pull_requests=[999001],
    )  # fmt: skip
    UpgradeAPI.objects.create(note=note, name="torch.secret_api")
    for path in (
        "/api/upgrade/?api=torch.secret",
        "/upgrade/?from=2.9&to=2.10",
        "/deprecations/",
        "/feeds/releases/2.10/upgrade/",
    ):
        body = client.get(path).content.decode()
        assert "secret" not in body.lower(), path
    assert client.get("/api/changes/", {"since": since}).json()["results"] == []
    note.summary, note.needs_review = "A secret API is going away", False
    note.save()
    assert client.get("/api/upgrade/?api=torch.secret").json()["count"] == 1
    # The public log announces the note and its API to mirrors, once kept.
    announced = client.get("/api/changes/", {"since": since}).json()["results"]
    assert {(c["type"], c["action"]) for c in announced} == {
        ("upgrade", "created"),
        ("upgrade_api", "created"),
    }


def test_a_published_note_needs_its_summary():
    note = UpgradeNote(slug="pr-1", kind="removal", area="", needs_review=False)
    with pytest.raises(ValidationError, match="summary"):
        note.clean()


def test_only_a_removal_of_a_later_release_removes_a_deprecation(full_catalog):
    deprecation = UpgradeNote.objects.get(release__version="2.9", slug="pr-158203")
    earlier = UpgradeNote(
        release=Release.objects.get(version="2.8"), slug="pr-2", kind="removal",
        summary="x", removes=deprecation,
    )  # fmt: skip
    with pytest.raises(ValidationError, match="earlier release"):
        earlier.clean()
    twice = UpgradeNote(
        release=Release.objects.get(version="2.12"), slug="pr-3", kind="deprecation",
        summary="x", removes=deprecation,
    )  # fmt: skip
    with pytest.raises(ValidationError, match="removes nothing"):
        twice.clean()


# --- import_release_notes -----------------------------------------------------------------

# A release-notes file in our own words, with the shapes the importer reads: H2 areas with H3
# entries, top-level bullets, a deprecation naming its removal version, an entry citing no
# pull request, and a section the importer skips.
SAMPLE = """\
# Gadgets 9.4 Release Notes

# Backwards Incompatible Changes

## Gadget Core
### `torch.gadgets.spin` now returns a view ([#990001](https://github.com/pytorch/pytorch/pull/990001))
Copy the result with `.clone()` where you change it.

### Removed `torch.gadgets.old_spin` ([#990002](https://github.com/pytorch/pytorch/pull/990002))
Use `torch.gadgets.spin` instead.

## Release Engineering
- Wheels need a newer C library now (#990003)

# Deprecations

## Gadget Core
- `torch.gadgets.wobble` is deprecated and will be removed in 9.6 (#990004)

## Horns
### The `loud` flag of `torch.gadgets.Horn` is deprecated
It does nothing now.

# New Features
### Something new ([#990005](https://github.com/pytorch/pytorch/pull/990005))
"""


@pytest.fixture
def gadgets(db, tmp_path):
    Release.objects.create(
        version="9.4", title="PyTorch 9.4", is_published=True, release_date="2031-04-01"
    )
    path = tmp_path / "final.md"
    path.write_text(SAMPLE, encoding="utf-8")
    return path


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_release_notes", *map(str, args), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_an_import_adds_drafts_once(gadgets, client):
    out, err = run(gadgets, "--release", "9.4", "--source-url", "https://example.org/n.md")
    assert "total            5     5     0       0        0" in out
    assert f"{gadgets}:21: no pull request cited" in err
    notes = {note.slug: note for note in UpgradeNote.objects.filter(release__version="9.4")}
    assert set(notes) == {"pr-990001", "pr-990002", "pr-990003", "pr-990004", "line-21"}
    assert all(note.needs_review and not note.summary for note in notes.values())
    removed = notes["pr-990002"]
    assert (removed.kind, removed.area, removed.source_line) == ("removal", "Gadget Core", 9)
    assert removed.replacement == "torch.gadgets.spin"
    assert removed.source_url == "https://example.org/n.md"
    assert notes["pr-990004"].removed_in == "9.6"
    names = list(notes["pr-990001"].apis.order_by("position").values_list("name", flat=True))
    assert names == ["torch.gadgets.spin", ".clone()"]  # the code spans of its first paragraph
    assert client.get("/api/upgrade/?release=9.4").json()["count"] == 0  # drafts, all of them
    again, _ = run(gadgets, "--release", "9.4")
    assert "total            5     0     5       0        0" in again
    assert UpgradeNote.objects.filter(release__version="9.4").count() == 5


def test_an_import_never_overwrites_an_editors_work(gadgets):
    run(gadgets, "--release", "9.4")
    note = UpgradeNote.objects.get(slug="pr-990003")
    note.kind, note.summary, note.needs_review = "removal", "Our words", False
    note.save()
    UpgradeNote.objects.get(slug="pr-990004").delete()
    out, _ = run(gadgets, "--release", "9.4")
    assert "differs, kept as is: pr-990003: kind removal (the notes: bc-breaking)" in out
    assert "deleted by an editor, kept deleted: pr-990004" in out
    note.refresh_from_db()
    assert (note.kind, note.summary) == ("removal", "Our words")
    assert not UpgradeNote.objects.filter(slug="pr-990004").exists()


def test_a_dry_run_writes_nothing(gadgets):
    out, _ = run(gadgets, "--release", "9.4", "--dry-run")
    assert "line 6: add bc-breaking pr-990001 (Gadget Core; 2 API(s))" in out
    assert "dry run: nothing written" in out
    assert not UpgradeNote.objects.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("# Highlights\nNothing here.\n", "no Backwards Incompatible Changes or Deprecations"),
        ("# Deprecations\n\nNone this time.\n", ":1: no entries under 'Deprecations'"),
        (b"\xff\xfe# Deprecations", r"not UTF-8 text \(byte 0\)"),
    ],
)
def test_a_file_it_cannot_use_is_named_and_nothing_is_written(gadgets, content, message):
    if isinstance(content, bytes):
        gadgets.write_bytes(content)
    else:
        gadgets.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError, match=message) as error:
        run(gadgets, "--release", "9.4")
    assert str(gadgets) in str(error.value)
    assert not UpgradeNote.objects.exists()


def test_the_release_must_be_in_the_catalog(gadgets):
    with pytest.raises(CommandError, match="--release: no release 9.5 in the catalog"):
        run(gadgets, "--release", "9.5")
    with pytest.raises(CommandError, match="--release: not a version"):
        run(gadgets, "--release", "nine")


def test_notes_on_the_web_are_read_from_their_url(gadgets, stand_in):
    stand_in.routes["/notes/final.md"] = (200, {}, SAMPLE.encode())
    url = stand_in.url("/notes/final.md")
    run(url, "--release", "9.4")
    assert UpgradeNote.objects.filter(source_url=url).count() == 5
    stand_in.routes["/gone.md"] = (404, {}, b"")
    with pytest.raises(CommandError, match="404"):
        run(stand_in.url("/gone.md"), "--release", "9.4")


def test_the_editors_desk_lists_notes_to_curate(gadgets, editor_client):
    run(gadgets, "--release", "9.4")
    desk = editor_client.get("/admin/").content.decode()
    assert "Upgrade notes awaiting review" in desk
    changelist = editor_client.get("/admin/releases/upgradenote/?needs_review__exact=1")
    assert changelist.status_code == 200 and "pr-990001" in changelist.content.decode()
    note = UpgradeNote.objects.get(slug="pr-990001")
    UpgradeNote.objects.filter(pk=note.pk).update(summary="spin returns a view; clone it")
    response = editor_client.post(
        "/admin/releases/upgradenote/",
        {
            "action": "keep",
            "_selected_action": [
                str(pk) for pk in UpgradeNote.objects.values_list("pk", flat=True)
            ],
        },
        follow=True,
    )
    text = response.content.decode()
    assert "Kept 1 note(s)." in text and "4 note(s) left waiting" in text
    assert list(UpgradeNote.objects.published().values_list("slug", flat=True)) == ["pr-990001"]


# One query is the catalog's revision; a release's page reads its supports, companions,
# patches, schedule, features and links, and its notes' counts within its own query (as
# tests/test_pages_full_size.py bounds it); /deprecations/ also reads its two menus.
MOST_QUERIES = {
    "/upgrade/?from=2.5&to=2.14": 7,  # and the releases in the range without notes
    "/upgrade/?api=torch.onnx&kind=deprecation,removal&area=onnx": 6,
    "/deprecations/?present_in=2.12&area=onnx": 8,
    "/releases/2.10/": 9,  # with its wheels (issue 40)
    "/tracks/torchscript/": 5,
    "/feeds/releases/2.10/upgrade/": 4,
}


@pytest.mark.parametrize(("path", "most"), MOST_QUERIES.items())
def test_every_upgrade_page_costs_a_bounded_number_of_queries(
    full_catalog, client, uncached, django_assert_max_num_queries, path, most
):
    with django_assert_max_num_queries(most):
        assert client.get(path).status_code == 200


def test_one_release_loads_without_the_release_its_removals_refer_to(db):
    out = io.StringIO()
    call_command("load_catalog", "--release", "2.11", stdout=out)
    assert "UpgradeNote pr-171714: removes ['2.9', 'pr-158203'] is not held: left out" in (
        out.getvalue()
    )
    removal = UpgradeNote.objects.get(release__version="2.11", slug="pr-171714")
    assert removal.removes is None and removal.kind == "removal"
    assert UpgradeNote.objects.filter(release__version="2.11").count() == 19


def test_loading_again_keeps_what_editors_deleted_and_what_it_referred_to(full_catalog):
    """A second load of held releases: a note an editor deleted stays deleted, and so do its
    APIs (they refer to it), and a removal whose deprecation is gone is not re-created."""
    UpgradeNote.objects.get(release__version="2.9", slug="pr-158203").delete()
    UpgradeNote.objects.get(release__version="2.10", slug="pr-165769").delete()
    out = io.StringIO()
    call_command("load_catalog", stdout=out)
    assert "kept as is" in out.getvalue()
    assert not UpgradeNote.objects.filter(slug__in=["pr-158203", "pr-165769"]).exists()
    assert not UpgradeAPI.objects.filter(name="torch.onnx.export(dynamic_axes=...)").exists()
    # The removal that completed the deleted deprecation stays, without its link.
    assert UpgradeNote.objects.get(release__version="2.11", slug="pr-171714").removes is None
    out = io.StringIO()
    call_command("load_catalog", "--release", "2.11", stdout=out)  # held: nothing to add
    assert UpgradeNote.objects.filter(release__version="2.11").count() == 19


def test_a_merge_takes_the_notes_of_the_track_it_empties(full_catalog):
    from releases import tracks
    from releases.models import Track

    note = UpgradeNote.objects.get(release__version="2.10", slug="pr-165769")
    onnx = note.track
    features = list(onnx.features.all())
    into = next(
        track
        for track in Track.objects.exclude(pk=onnx.pk).order_by("slug")
        if not tracks.merge_conflicts(features, track)
    )
    tracks.merge(features, into)
    note.refresh_from_db()
    assert note.track == into and not Track.objects.filter(pk=onnx.pk).exists()


def test_a_byte_order_mark_is_read_and_a_nul_refused(gadgets):
    """Issue 42: a file that begins with a BOM reads as without one; a NUL is refused by line."""
    gadgets.write_text("\ufeff" + SAMPLE, encoding="utf-8")
    out, _ = run(gadgets, "--release", "9.4", "--dry-run")
    assert "total            5     5" in out
    gadgets.write_text(SAMPLE.replace("Gadget Core", "Gadget\x00Core", 1), encoding="utf-8")
    with pytest.raises(CommandError, match=r":\d+: a control character \(U\+0000\)"):
        run(gadgets, "--release", "9.4")
    assert not UpgradeNote.objects.filter(release__version="9.4").exists()


def test_deprecations_list_the_newest_release_first(full_catalog, client):
    """Issue 43: /deprecations/ listed oldest first, so what is deprecated now came last."""
    page = client.get("/deprecations/").content.decode()
    shown = re.findall(
        r'<td class="version" data-label="Deprecated in"><a href="/releases/([^/]+)/"', page
    )
    assert shown and shown[0] == "2.14"
    assert shown == sorted(shown, key=Version.parse, reverse=True)


def test_searching_a_capabilitys_name_finds_the_notes_of_its_apis(full_catalog, client):
    """Issue 43: "TorchScript" found nothing, only torch.jit did. The search knows a capability
    by its track's name, and an API's notes bring their capability's others."""

    def found(text):
        answer = client.get("/api/upgrade/", {"api": text, "page_size": 100}).json()
        return {(note["release"], note["slug"]) for note in answer["results"]}

    torchscript = found("TorchScript")
    of_the_track = {
        (note.release.version, note.slug)
        for note in UpgradeNote.objects.published().filter(track__slug="torchscript")
    }
    assert of_the_track and torchscript >= of_the_track
    assert found("torch.jit") >= of_the_track
    assert found("torchscript") == torchscript  # a name in any case
    assert found("no-such-capability") == set()


def test_deprecations_list_only_what_deprecates_something(full_catalog, client):
    """Issue 43: /deprecations/ showed rows that say nothing was deprecated (2.5's AOTAutograd
    metadata, 2.12's config-deprecation mechanism): kept with the notes, marked, left out."""
    asks_nothing = UpgradeNote.objects.published().filter(asks_nothing=True)
    assert sorted(asks_nothing.values_list("release__version", "slug")) == [
        ("2.12", "pr-169837"),
        ("2.5", "pr-126573"),
    ]
    page = client.get("/deprecations/").content.decode()
    assert "pr-126573" not in page and "pr-169837" not in page
    listed = client.get("/api/upgrade/", {"release": "2.12", "kind": "deprecation"}).json()
    marked = {note["slug"]: note["asks_nothing"] for note in listed["results"]}
    assert marked["pr-169837"] is True and list(marked.values()).count(True) == 1
    checklist = client.get("/upgrade/", {"from": "2.11", "to": "2.12"}).content.decode()
    assert "asks nothing of you" in checklist

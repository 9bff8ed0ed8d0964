"""The admin pages an editor uses, as a member of "Editors" who is not a superuser."""

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from releases.editors import EDITORS_GROUP
from releases.models import Feature, Link, Release, Stability, Track
from tests.admin_post import page_data
from tests.factories import FeatureFactory, ReleaseFactory

pytestmark = pytest.mark.django_db


def test_editors_group_may_delete_links_aliases_features_and_emptied_tracks_only(db):
    codenames = set(
        Group.objects.get(name=EDITORS_GROUP).permissions.values_list("codename", flat=True)
    )
    for model in ["release", "feature", "link", "area", "areaalias", "track", "stageclaim"]:
        assert {f"view_{model}", f"add_{model}", f"change_{model}"} <= codenames
    # Merging and splitting delete the tracks they empty; features protect every other track.
    # Links, aliases and features come back from the history; releases, areas, claims stay.
    # What an import of compatibility tables brought, editors keep or delete (issue 32).
    assert {name for name in codenames if name.startswith("delete_")} == {
        "delete_track",
        "delete_link",
        "delete_areaalias",
        "delete_feature",
        "delete_support",
        "delete_companion",
        "delete_patchrelease",
        "delete_scheduledate",
        "delete_upgradenote",  # issue 33: what an import of release notes brought
        "delete_upgradeapi",
        "delete_webhook",  # issue 44: endpoints editors registered
        "delete_emailsubscription",  # and an address that asks to be forgotten
    }


@pytest.mark.parametrize("model", ["release", "feature", "link", "area", "track", "stageclaim"])
def test_editor_sees_every_changelist(editor_client, model):
    response = editor_client.get(reverse(f"admin:releases_{model}_changelist"))
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("model", "query"),
    [
        ("feature", "?stability__exact=prototype&release__id__exact=__1_8__"),
        ("feature", "?has_missing_links=yes"),
        ("feature", "?q=fft"),
        ("link", "?is_missing=yes"),
        ("link", "?kind__exact=rfc"),
        ("release", "?is_published__exact=1"),
        ("area", "?q=front+end"),
    ],
)
def test_filters_and_search_work(editor_client, model, query):
    release_18 = Release.objects.get(version="1.8")
    response = editor_client.get(
        reverse(f"admin:releases_{model}_changelist") + query.replace("__1_8__", str(release_18.pk))
    )
    assert response.status_code == 200
    assert "result_list" in response.content.decode() or "0 " in response.content.decode()


def test_missing_links_filter_lists_the_editors_to_do(editor_client):
    response = editor_client.get(reverse("admin:releases_link_changelist") + "?is_missing=yes")
    assert response.context["cl"].result_count == 10


def test_editor_fixes_a_features_stability(editor_client):
    feature = Feature.objects.get(release__version="1.8", slug="remote-module")
    url = reverse("admin:releases_feature_change", args=[feature.pk])
    page = editor_client.get(url)
    assert page.status_code == 200
    data = page_data(page)
    data.update(stability=Stability.BETA)
    response = editor_client.post(url, data)
    assert response.status_code == 302, (
        response.context["adminform"].form.errors if response.context else response
    )
    feature.refresh_from_db()
    assert feature.stability == Stability.BETA
    assert feature.stage_source == "editor"  # no longer the post's tag


def test_editor_fills_in_a_missing_link_from_the_changelist(editor_client):
    link = Link.objects.missing().get(feature__slug="benchmark-utilities")
    changelist = reverse("admin:releases_link_changelist") + "?is_missing=yes"
    page = editor_client.get(changelist)
    formset = page.context["cl"].formset
    data = {f"form-{key}": value for key, value in formset.management_form.initial.items()}
    for index, form in enumerate(formset.forms):
        data[f"form-{index}-id"] = form.instance.pk
        data[f"form-{index}-read_version"] = form["read_version"].value()
        data[f"form-{index}-url"] = (
            "https://pytorch.org/docs/stable/benchmark_utils.html"
            if form.instance.pk == link.pk
            else ""
        )
    data["_save"] = "Save"
    response = editor_client.post(changelist, data)
    assert response.status_code == 302
    link.refresh_from_db()
    assert link.url == "https://pytorch.org/docs/stable/benchmark_utils.html"
    assert Link.objects.missing().count() == 9


def test_bulk_action_marks_features_stable(editor_client):
    features = Feature.objects.filter(release__version="1.9", stability=Stability.PROTOTYPE)
    pks = list(features.values_list("pk", flat=True))
    response = editor_client.post(
        reverse("admin:releases_feature_changelist"),
        {"action": "mark_stable", "_selected_action": pks},
    )
    assert response.status_code == 302
    assert set(Feature.objects.filter(pk__in=pks).values_list("stability", flat=True)) == {
        Stability.STABLE
    }


def test_publish_shows_the_checklist_first_and_refuses_only_a_missing_date(editor_client):
    undated = ReleaseFactory(version="2.0", release_date=None, is_published=False)
    dated = ReleaseFactory(version="2.1", is_published=False)
    changelist = reverse("admin:releases_release_changelist")
    selected = {"action": "publish", "_selected_action": [undated.pk, dated.pk]}
    page = editor_client.post(changelist, selected).content.decode()
    assert "Blocks publishing:</span>\n" in page or "Blocks publishing:" in page
    assert "A summary in our own words" in page
    assert 'value="Publish PyTorch 2.1"' in page  # only the one that may be
    undated.refresh_from_db()
    assert not undated.is_published  # nothing happens before the confirmation
    response = editor_client.post(changelist, {**selected, "confirmed": "yes"}, follow=True)
    assert "Not published, set a release date first: 2.0." in response.content.decode()
    undated.refresh_from_db()
    dated.refresh_from_db()
    assert (undated.is_published, dated.is_published) == (False, True)
    record = dated.history.latest()
    assert (record.history_user.username, record.history_change_reason) == (
        "eddie",
        "published in the admin",
    )


def test_unpublishing_asks_first(editor_client):
    release = Release.objects.get(version="1.6")
    url = reverse("admin:releases_release_unpublish", args=[release.pk])
    page = editor_client.get(url).content.decode()
    assert "stop showing" in page and 'value="Unpublish PyTorch 1.6"' in page
    release.refresh_from_db()
    assert release.is_published
    editor_client.post(url)
    release.refresh_from_db()
    assert not release.is_published


def test_editor_adds_a_release_then_its_features_from_its_page(editor_client):
    response = editor_client.get(reverse("admin:releases_release_add"))
    assert response.status_code == 200
    area = Feature.objects.first().area
    response = editor_client.post(
        reverse("admin:releases_release_add"),
        {
            "version": "1.10",
            "title": "PyTorch 1.10",
            "release_date": "2021-10-21",
            "announcement_url": "",
            "release_notes_url": "",
            "summary": "",
            "highlights": "",
            "commit_count": "",
            "contributor_count": "",
        },
    )
    assert response.status_code == 302
    release = Release.objects.get(version="1.10")
    assert release.version_minor == 10 and not release.is_published
    page = editor_client.get(reverse("admin:releases_release_change", args=[release.pk]))
    add = reverse("admin:releases_feature_add") + f"?release={release.pk}"
    assert add in page.content.decode()
    form = editor_client.get(add).context["adminform"].form
    assert form.initial["release"] == str(release.pk)
    response = editor_client.post(
        add,
        {
            "release": release.pk,
            "title": "New thing",
            "slug": "new-thing",
            "stability": "beta",
            "area": area.pk,
            "position": 1,
            "summary": "",
            "links-TOTAL_FORMS": 0,
            "links-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    assert release.features.get().title == "New thing"


def test_area_autocomplete_for_editors(editor_client):
    response = editor_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "releases", "model_name": "feature", "field_name": "area", "term": "dist"},
    )
    assert response.status_code == 200
    assert [item["text"] for item in response.json()["results"]] == ["Distributed Training"]


def test_editors_cannot_delete(editor_client):
    release = Release.objects.get(version="1.6")
    response = editor_client.get(reverse("admin:releases_release_delete", args=[release.pk]))
    assert response.status_code == 403


def test_anonymous_users_are_sent_to_log_in(client, catalog):
    response = client.get(reverse("admin:releases_feature_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_staff_outside_the_editors_group_cannot_curate(client, catalog):
    client.force_login(User.objects.create_user("visitor", is_staff=True))
    assert client.get(reverse("admin:releases_feature_changelist")).status_code == 403


@pytest.mark.parametrize("model", ["release", "feature", "link", "area", "track"])
def test_changelists_make_no_query_per_row(editor_client, model):
    url = reverse(f"admin:releases_{model}_changelist")

    def queries():
        with CaptureQueriesContext(connection) as captured:
            assert editor_client.get(url).status_code == 200
        return len(captured)

    before = queries()
    release = ReleaseFactory()
    for feature in FeatureFactory.create_batch(20, release=release):
        feature.links.create(
            label="Docs", url=f"https://example.org/{feature.pk}", kind="documentation"
        )
    assert queries() == before


def test_merge_into_track_asks_which_track_then_merges(editor_client):
    set_det = Feature.objects.get(release__version="1.7", slug="torch-set-deterministic")
    editor_client.post(
        reverse("admin:releases_feature_changelist"),
        {"action": "split_into_own_track", "_selected_action": [set_det.pk]},
    )
    set_det.refresh_from_db()
    own = set_det.track
    assert own.slug != "deterministic-algorithms"

    changelist = reverse("admin:releases_feature_changelist")
    page = editor_client.post(
        changelist, {"action": "merge_into_track", "_selected_action": [set_det.pk]}
    )
    assert page.status_code == 200
    assert "Merge into track" in page.content.decode()
    # The track is picked by searching (the admin's autocomplete), not from a long list.
    assert 'class="admin-autocomplete' in page.content.decode()
    found = editor_client.get(
        reverse("admin:autocomplete"),
        {"term": "determin", "app_label": "releases", "model_name": "feature",
         "field_name": "track"},
    ).json()  # fmt: skip
    assert "deterministic-algorithms" in [
        Track.objects.get(pk=item["id"]).slug for item in found["results"]
    ]
    target = Track.objects.get(slug="deterministic-algorithms")
    done = editor_client.post(
        changelist,
        {
            "action": "merge_into_track",
            "_selected_action": [set_det.pk],
            "apply": "1",
            "track": target.pk,
        },
    )
    assert done.status_code == 302
    set_det.refresh_from_db()
    assert set_det.track == target
    assert not Track.objects.filter(pk=own.pk).exists()


def test_feature_page_shows_its_tracks_timeline(editor_client):
    feature = Feature.objects.get(release__version="1.8", slug="zeroredundancyoptimizer")
    page = editor_client.get(reverse("admin:releases_feature_change", args=[feature.pk]))
    html = page.content.decode()
    first = html.index("1.8: Prototype")
    assert first < html.index("1.9: Beta")
    assert "(this feature)" in html


def test_track_page_lists_appearances_in_version_order(editor_client):
    track = Track.objects.get(slug="module-freezing")
    page = editor_client.get(reverse("admin:releases_track_change", args=[track.pk]))
    assert page.status_code == 200
    inline = page.context["inline_admin_formsets"][0]
    versions = [form.original.release.version for form in inline]
    assert versions == ["1.6", "1.9"]

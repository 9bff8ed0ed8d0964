"""
No silent lost updates: a save from a stale form is refused, naming what the other editor
changed, and the refused form keeps the editor's input for a second try. The write path, merge,
split, revert and the importer's bulk writes check the version they read, in the transaction.
"""

import pytest
from django.contrib.auth.models import Group, User
from django.core.exceptions import FieldDoesNotExist
from django.test import Client
from django.urls import reverse

from releases import tracks, writes
from releases.editors import EDITORS_GROUP
from releases.models import Feature, Link, Release, Track
from tests.admin_post import page_data

pytestmark = pytest.mark.django_db


def signed_in(name):
    user = User.objects.create_user(name, is_staff=True)
    user.groups.add(Group.objects.get(name=EDITORS_GROUP))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice(catalog):
    return signed_in("alice")


@pytest.fixture
def bob(catalog):
    return signed_in("bob")


def remote_module():
    return Feature.objects.get(release__version="1.8", slug="remote-module")


def change_url(obj):
    return reverse(f"admin:releases_{obj._meta.model_name}_change", args=[obj.pk])


def test_bobs_stale_save_is_refused_naming_alices_change_and_his_input_is_kept(alice, bob):
    feature = remote_module()
    url = change_url(feature)
    alice_data, bob_data = page_data(alice.get(url)), page_data(bob.get(url))

    alice_data["title"] = "Remote Module, retitled by Alice"
    assert alice.post(url, alice_data).status_code == 302

    bob_data["summary"] = "Bob's summary."
    refused = bob.post(url, bob_data)
    assert refused.status_code == 200  # the form again, not a redirect: nothing saved
    page = refused.content.decode()
    assert "Not saved: this feature changed while you were editing it." in page
    assert "alice changed title at " in page
    feature.refresh_from_db()
    assert (feature.title, feature.summary) == ("Remote Module, retitled by Alice", feature.summary)
    assert feature.summary != "Bob's summary."

    # Bob's input stays; Alice's title replaces the old one he left alone; the form moved on.
    again = page_data(refused)
    assert again["summary"] == "Bob's summary."
    assert again["title"] == "Remote Module, retitled by Alice"
    assert int(again["read_version"]) == feature.row_version

    assert bob.post(url, again).status_code == 302
    feature.refresh_from_db()
    assert feature.title == "Remote Module, retitled by Alice"
    assert feature.summary == "Bob's summary."
    assert feature.history.latest().history_user.username == "bob"


def test_a_field_both_editors_changed_keeps_bobs_value_for_him_to_decide(alice, bob):
    feature = remote_module()
    url = change_url(feature)
    alice_data, bob_data = page_data(alice.get(url)), page_data(bob.get(url))
    alice_data["title"] = "Alice's title"
    bob_data["title"] = "Bob's title"
    assert alice.post(url, alice_data).status_code == 302
    refused = bob.post(url, bob_data)
    assert "alice changed title" in refused.content.decode()
    assert page_data(refused)["title"] == "Bob's title"
    assert remote_module().title == "Alice's title"


def test_a_stale_link_label_in_the_inline_is_refused_not_written_back(alice, bob):
    feature = remote_module()
    link = feature.links.order_by("position", "pk").first()
    url = change_url(feature)
    alice_data, bob_data = page_data(alice.get(url)), page_data(bob.get(url))
    index = next(key for key, value in alice_data.items() if value == link.pk).split("-")[1]

    alice_data[f"links-{index}-label"] = "Alice's label"
    assert alice.post(url, alice_data).status_code == 302

    bob_data["summary"] = "Bob's summary."  # Bob's page still shows the old label
    refused = bob.post(url, bob_data)
    assert refused.status_code == 200
    assert "alice changed label at" in refused.content.decode()
    link.refresh_from_db()
    assert link.label == "Alice's label"
    assert remote_module().summary != "Bob's summary."

    again = page_data(refused)
    assert again[f"links-{index}-label"] == "Alice's label"
    assert bob.post(url, again).status_code == 302
    link.refresh_from_db()
    assert link.label == "Alice's label"
    assert remote_module().summary == "Bob's summary."


@pytest.mark.parametrize("model", [Release, Track])
def test_every_edited_model_refuses_a_stale_form(alice, bob, model):
    obj = model.objects.first()
    url = change_url(obj)
    alice_data, bob_data = page_data(alice.get(url)), page_data(bob.get(url))
    alice_data["title" if model is Release else "description"] = "Alice was here."
    assert alice.post(url, alice_data).status_code == 302
    assert "alice changed" in bob.post(url, bob_data).content.decode()


def test_a_form_without_its_version_is_refused_with_a_message_not_a_500(bob):
    feature = remote_module()
    url = change_url(feature)
    data = page_data(bob.get(url))
    for bad in ["", "abc", "²"]:
        data["read_version"] = bad
        response = bob.post(url, data)
        assert response.status_code == 200
        assert "reload the page" in response.content.decode()


def test_a_revert_from_a_stale_page_is_refused(alice, bob):
    feature = remote_module()
    url = change_url(feature)
    data = page_data(alice.get(url))
    data["title"] = "First edit"
    assert alice.post(url, data).status_code == 302
    older = feature.history.order_by("history_id")[0]  # the version before Alice's edit
    revert_url = reverse(
        "admin:releases_feature_simple_history", args=[feature.pk, older.history_id]
    )
    revert = page_data(bob.get(revert_url))
    data = page_data(alice.get(url))
    data["summary"] = "Alice's later summary."
    assert alice.post(url, data).status_code == 302

    refused = bob.post(revert_url, revert)
    assert refused.status_code == 200
    assert "alice changed summary" in refused.content.decode()
    assert remote_module().summary == "Alice's later summary."


def test_the_write_path_refuses_a_stale_instance_in_one_conditional_update(catalog):
    read = remote_module()
    meanwhile = remote_module()
    meanwhile.title = "Changed meanwhile"
    meanwhile.save()
    assert meanwhile.row_version == read.row_version + 1
    read.summary = "From an old read."
    with pytest.raises(writes.StaleEdit):
        read.save()
    assert remote_module().summary != "From an old read."
    # A form's version says the same: expected at an old version, refused.
    current = remote_module()
    writes.expect_version(current, read.row_version)
    current.summary = "Also stale."
    with pytest.raises(writes.StaleEdit):
        current.save()


def test_queryset_updates_move_the_version_only_of_rows_they_change(catalog):
    feature = remote_module()
    Feature.objects.filter(pk=feature.pk).update(summary=feature.summary)
    assert remote_module().row_version == feature.row_version
    Feature.objects.filter(pk=feature.pk).update(summary="New.")
    assert remote_module().row_version == feature.row_version + 1


def test_bulk_update_refuses_stale_objects_as_the_importer_writes_them(catalog):
    features = list(Feature.objects.filter(release__version="1.8")[:3])
    Feature.objects.filter(pk=features[1].pk).update(summary="An editor's summary.")
    for feature in features:
        feature.position += 100
    with pytest.raises(writes.StaleEdit):
        Feature.objects.bulk_update(features, ["position"])
    assert Feature.objects.get(pk=features[0].pk).position < 100  # nothing written


def test_merge_and_split_refuse_features_changed_since_they_were_read(catalog):
    one = Feature.objects.get(release__version="1.8", slug="remote-module")
    into = Track.objects.exclude(features__release__version="1.8").first()
    track_id, track_count = one.track_id, Track.objects.count()
    Feature.objects.filter(pk=one.pk).update(summary="Changed meanwhile.")
    with pytest.raises(writes.StaleEdit):
        tracks.merge([one], into)
    assert remote_module().track_id == track_id
    with pytest.raises(writes.StaleEdit):
        tracks.split([one])
    assert remote_module().track_id == track_id
    assert Track.objects.count() == track_count  # the split's new track went with it


def test_the_version_stays_out_of_fixtures_and_the_history(db):
    for model in (Release, Feature, Link, Track):
        assert "row_version" not in model.carried_fields()
        with pytest.raises(FieldDoesNotExist):
            model.history.model._meta.get_field("row_version")


def test_a_stale_row_of_an_editable_list_is_refused(alice, bob):
    link = Link.objects.missing().get(feature__slug="benchmark-utilities")
    changelist = reverse("admin:releases_link_changelist") + "?is_missing=yes"
    alice_page, bob_page = alice.get(changelist), bob.get(changelist)

    def filled(page, url_for):
        formset = page.context["cl"].formset
        data = {f"form-{key}": value for key, value in formset.management_form.initial.items()}
        for index, form in enumerate(formset.forms):
            data[f"form-{index}-id"] = form.instance.pk
            data[f"form-{index}-read_version"] = form["read_version"].value()
            data[f"form-{index}-url"] = url_for(form.instance)
        return {**data, "_save": "Save"}

    alice_url = "https://example.org/alice.html"
    data = filled(alice_page, lambda obj: alice_url if obj.pk == link.pk else "")
    assert alice.post(changelist, data).status_code == 302
    # Bob fills another row; his list still shows Alice's link as missing.
    other = next(f.instance for f in bob_page.context["cl"].formset.forms if f.instance != link)
    data = filled(bob_page, lambda obj: "https://example.org/bob.html" if obj == other else "")
    refused = bob.post(changelist, data)
    assert refused.status_code == 200
    assert "alice changed url" in refused.content.decode()
    link.refresh_from_db()
    assert link.url == alice_url

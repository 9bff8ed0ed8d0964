"""Editors delete links, aliases and draft features, retire published features, and recover all."""

import pytest
from django.urls import reverse

from releases.models import AreaAlias, Feature, Link
from tests.admin_post import page_data
from tests.factories import AreaAliasFactory, FeatureFactory, ReleaseFactory

pytestmark = pytest.mark.django_db

DELETED = reverse("admin:releases_feature_deleted")


def test_an_editor_deletes_a_link_in_the_inline_and_recovers_it(editor_client):
    feature = Feature.objects.get(release__version="1.8", slug="remote-module")
    link = feature.links.order_by("position", "pk").first()
    url = reverse("admin:releases_feature_change", args=[feature.pk])
    page = editor_client.get(url)
    assert "links-0-DELETE" in page.content.decode()  # the inline's Delete column
    data = page_data(page)
    index = next(key for key, value in data.items() if value == link.pk).split("-")[1]
    data[f"links-{index}-DELETE"] = "on"
    assert editor_client.post(url, data).status_code == 302
    assert not Link.objects.filter(pk=link.pk).exists()

    listed = editor_client.get(DELETED)
    record = listed.context["tables"][1].records[0]
    assert record.id == link.pk and record.history_user.username == "eddie"
    assert editor_client.post(DELETED, {"link": record.history_id}).status_code == 302
    recovered = Link.objects.get(pk=link.pk)
    assert (recovered.label, recovered.url, recovered.feature_id) == (
        link.label,
        link.url,
        feature.pk,
    )
    assert not editor_client.get(DELETED).context["tables"][1].records


def test_an_editor_deletes_an_alias_and_recovers_it(editor_client):
    alias = AreaAliasFactory(name="Front End APIs, once")
    pk = alias.pk
    alias.delete()
    record = editor_client.get(DELETED).context["tables"][2].records[0]
    assert editor_client.post(DELETED, {"alias": record.history_id}).status_code == 302
    assert AreaAlias.objects.get(pk=pk).name == "Front End APIs, once"


def test_a_draft_feature_is_deleted_after_the_confirmation_and_comes_back(editor_client):
    feature = FeatureFactory(release=ReleaseFactory(is_published=False))
    change = editor_client.get(reverse("admin:releases_feature_change", args=[feature.pk]))
    assert ">Delete</a>" in change.content.decode()
    url = reverse("admin:releases_feature_delete", args=[feature.pk])
    confirm = editor_client.get(url)
    assert "can be recovered" in confirm.content.decode()
    assert editor_client.post(url, {"post": "yes"}).status_code == 302
    assert not Feature.objects.filter(pk=feature.pk).exists()
    record = editor_client.get(DELETED).context["tables"][0].records[0]
    editor_client.post(DELETED, {"record": record.history_id})
    assert Feature.objects.filter(pk=feature.pk).exists()


def test_a_published_feature_is_retired_with_a_confirmation_that_says_so(editor_client):
    feature = Feature.objects.get(release__version="1.8", slug="remote-module")
    links = feature.links.count()
    change = editor_client.get(reverse("admin:releases_feature_change", args=[feature.pk]))
    assert ">Retire…</a>" in change.content.decode()
    url = reverse("admin:releases_feature_delete", args=[feature.pk])
    confirm = editor_client.get(url).content.decode()
    assert "Retire Remote Module (1.8)?" in confirm and "is public" in confirm
    assert Feature.objects.filter(pk=feature.pk).exists()  # asking changes nothing
    assert editor_client.post(url, {"post": "yes"}).status_code == 302
    assert not Feature.objects.filter(pk=feature.pk).exists()
    record = editor_client.get(DELETED).context["tables"][0].records[0]
    editor_client.post(DELETED, {"record": record.history_id})
    assert Feature.objects.get(pk=feature.pk).links.count() == links


def test_bulk_deletion_takes_draft_features_only(editor_client):
    draft = FeatureFactory(release=ReleaseFactory(is_published=False))
    published = Feature.objects.get(release__version="1.8", slug="remote-module")
    changelist = reverse("admin:releases_feature_changelist")
    action = {"action": "delete_draft_features", "_selected_action": [draft.pk, published.pk]}
    refused = editor_client.post(changelist, action, follow=True)
    assert "retire those one at a time" in refused.content.decode()
    assert Feature.objects.filter(pk__in=[draft.pk, published.pk]).count() == 2
    action["_selected_action"] = [draft.pk]
    confirm = editor_client.post(changelist, action)
    assert confirm.status_code == 200 and "Are you sure" in confirm.content.decode()
    editor_client.post(changelist, {**action, "post": "yes"})
    assert not Feature.objects.filter(pk=draft.pk).exists()


def test_recovery_refuses_bad_record_numbers_with_a_404(editor_client):
    for value in ["", "x", "１", "999999"]:
        assert editor_client.post(DELETED, {"link": value}).status_code == 404

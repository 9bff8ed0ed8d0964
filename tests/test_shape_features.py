"""
One shape per resource: /api/features/ builds its items from values rows (``feature_items``),
and those items are FeatureSerializer's, field for field, because the fast path reads the
serializer's fields (releases.api.rows) rather than restating them.
"""

import datetime as dt
import json

import pytest
from django.core.exceptions import ImproperlyConfigured
from rest_framework import serializers

from releases.api.rows import RowShape
from releases.api.serializers import (
    FEATURE_ROWS,
    FeatureSerializer,
    LinkSerializer,
    feature_items,
    feature_values,
)
from releases.models import Feature, Link, LinkStatus


@pytest.fixture
def catalog_with_every_case(full_catalog):
    """Every fixture, plus what fixtures lack: checked links, an editor's feature, no section."""
    links = list(Link.objects.order_by("pk")[:3])
    checked = dt.datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=dt.UTC)
    Link.objects.filter(pk=links[0].pk).update(status=LinkStatus.OK, checked_at=checked)
    Link.objects.filter(pk=links[1].pk).update(
        status=LinkStatus.REDIRECTED,
        checked_at=checked.replace(microsecond=0),
        final_url="https://example.org/moved",
    )
    Link.objects.filter(pk=links[2].pk).update(url="")  # still missing
    feature = Feature.objects.filter(source_post__gt="").order_by("pk").first()
    Feature.objects.filter(pk=feature.pk).update(source_section="", source_line=None)
    Feature.objects.create(
        release=feature.release, title="Added by hand", slug="added-by-hand", area=feature.area
    )


def documented(serializer_class):
    """Every feature, as ``serializer_class`` shows it, through DRF: the reference."""
    features = Feature.objects.for_release_page().order_by("pk")
    return json.dumps(serializer_class(features, many=True).data)


def served(shape):
    rows = list(shape.values(Feature.objects.order_by("pk")))
    return json.dumps(shape.items(rows))


@pytest.mark.django_db
def test_the_list_shows_every_feature_as_the_serializer_does(catalog_with_every_case):
    items = feature_items(list(feature_values(Feature.objects.order_by("pk"))))
    assert len(items) == Feature.objects.count()
    assert json.dumps(items) == documented(FeatureSerializer)
    shown = {item["slug"]: item for item in items}
    assert shown["added-by-hand"]["source"] is None
    links = [link for item in items for link in item["links"]]
    assert {"2026-03-04T05:06:07.891011Z", "2026-03-04T05:06:07Z"} <= {
        link["checked_at"] for link in links
    }
    assert {link["final_url"] for link in links} >= {None, "https://example.org/moved"}
    assert {link["is_missing"] for link in links} == {True, False}


class WiderLinkSerializer(LinkSerializer):
    feature_position = serializers.IntegerField(source="feature.position")

    class Meta(LinkSerializer.Meta):
        fields = ["position", *LinkSerializer.Meta.fields, "feature_position"]


class WiderFeatureSerializer(FeatureSerializer):
    """FeatureSerializer with fields added, one renamed and the order changed."""

    release_title = serializers.CharField(source="release.title")
    created = serializers.DateTimeField(source="created_at")
    headline = serializers.CharField(source="title")
    links = WiderLinkSerializer(many=True)

    class Meta(FeatureSerializer.Meta):
        fields = ["created", "headline", *FeatureSerializer.Meta.fields[::-1], "release_title"]


@pytest.mark.django_db
def test_a_field_added_to_the_serializer_is_in_the_list(catalog_with_every_case):
    assert list(feature_items(list(feature_values(Feature.objects.all()[:1])))[0]) == list(
        FeatureSerializer().fields
    )
    wider = RowShape(WiderFeatureSerializer(), children=FEATURE_ROWS.children)
    assert served(wider) == documented(WiderFeatureSerializer)
    item = json.loads(served(wider))[0]
    assert list(item) == list(WiderFeatureSerializer().fields)
    assert list(item["links"][0]) == list(WiderLinkSerializer().fields)


class ShownByHand(FeatureSerializer):
    def to_representation(self, feature):
        return {**super().to_representation(feature), "extra": True}


class ComputedField(FeatureSerializer):
    is_new = serializers.SerializerMethodField()

    class Meta(FeatureSerializer.Meta):
        fields = [*FeatureSerializer.Meta.fields, "is_new"]

    def get_is_new(self, feature):
        return True


class UnorderedList(FeatureSerializer):
    """A nested list with no queryset in RowShape(children=...) to order it."""

    more_links = LinkSerializer(many=True, source="links")

    class Meta(FeatureSerializer.Meta):
        fields = [*FeatureSerializer.Meta.fields, "more_links"]


@pytest.mark.parametrize("serializer_class", [ShownByHand, ComputedField, UnorderedList])
def test_a_serializer_the_rows_cannot_show_is_refused(serializer_class):
    with pytest.raises(ImproperlyConfigured):
        RowShape(serializer_class(), children=FEATURE_ROWS.children).values(Feature.objects.all())


@pytest.mark.django_db
def test_a_page_of_any_size_takes_one_query_for_its_links(
    catalog_with_every_case, django_assert_num_queries
):
    for size in (1, 50, 200):
        rows = list(feature_values(Feature.objects.order_by("pk"))[:size])
        with django_assert_num_queries(1):
            assert len(feature_items(rows)) == size

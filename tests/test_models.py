import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from releases.importing.areas import normalize_heading
from releases.models import Area, Feature, Link, Release, Stability
from tests.factories import AreaFactory, FeatureFactory, LinkFactory, ReleaseFactory

pytestmark = pytest.mark.django_db


def test_version_parts_are_derived_on_save():
    release = ReleaseFactory(version="2.0.0rc1")
    assert (release.version_major, release.version_minor, release.version_micro) == (2, 0, 0)
    assert (release.version_pre_rank, release.version_pre_number) == (2, 1)


def test_releases_order_as_versions_in_sql():
    for version in ["1.9", "1.10", "2.0", "2.0.0rc1", "1.6", "2.1.2"]:
        ReleaseFactory(version=version)
    assert list(Release.objects.values_list("version", flat=True)) == [
        "2.1.2",
        "2.0",
        "2.0.0rc1",
        "1.10",
        "1.9",
        "1.6",
    ]


def test_version_ranges_compare_as_versions():
    for version in ["1.9", "1.10", "2.0.0rc1", "2.0"]:
        ReleaseFactory(version=version)
    at_least = Release.objects.version_at_least("1.10").values_list("version", flat=True)
    assert sorted(at_least) == ["1.10", "2.0", "2.0.0rc1"]
    at_most = Release.objects.version_at_most("2.0.0rc1").values_list("version", flat=True)
    assert sorted(at_most) == ["1.10", "1.9", "2.0.0rc1"]


def test_features_follow_their_release_when_its_version_is_corrected():
    feature = FeatureFactory(release=ReleaseFactory(version="1.01"))
    release = feature.release
    release.version = "1.10"
    release.save()
    feature.refresh_from_db()
    assert feature.release_version_key == release.version_key
    assert list(Feature.objects.version_at_least("1.9")) == [feature]


def test_one_version_cannot_be_stored_twice_under_two_spellings():
    ReleaseFactory(version="1.9")
    with pytest.raises(IntegrityError), transaction.atomic():
        Release.objects.create(version="1.9.0", title="again")


def test_malformed_versions_fail_validation():
    with pytest.raises(ValidationError, match="version"):
        Release(version="1.x", title="nope").full_clean()


def test_a_published_release_needs_a_date():
    with pytest.raises(IntegrityError), transaction.atomic():
        ReleaseFactory(release_date=None, is_published=True)
    assert ReleaseFactory(release_date=None, is_published=False).pk


def test_feature_slugs_are_unique_within_a_release_only():
    feature = FeatureFactory(slug="torch-fft")
    FeatureFactory(slug="torch-fft", release=ReleaseFactory())
    with pytest.raises(IntegrityError), transaction.atomic():
        FeatureFactory(slug="torch-fft", release=feature.release)


def test_stability_must_be_a_known_level():
    with pytest.raises(IntegrityError), transaction.atomic():
        FeatureFactory(stability="alpha")
    assert FeatureFactory(stability="").stability == ""


def test_a_feature_links_to_a_url_once_but_may_have_several_missing_links():
    feature = FeatureFactory()
    LinkFactory(feature=feature, url="https://example.org/a")
    with pytest.raises(IntegrityError), transaction.atomic():
        LinkFactory(feature=feature, url="https://example.org/a", label="Again")
    LinkFactory(feature=feature, url="", label="Documentation")
    LinkFactory(feature=feature, url="", label="Usage examples")
    assert feature.links.missing().count() == 2


def test_deleting_an_area_in_use_is_refused():
    feature = FeatureFactory()
    with pytest.raises(IntegrityError), transaction.atomic():
        Area.objects.filter(pk=feature.area_id).delete()


def test_natural_keys_round_trip():
    link = LinkFactory(url="")
    feature, release = link.feature, link.feature.release
    assert Release.objects.get_by_natural_key(*release.natural_key()) == release
    assert Feature.objects.get_by_natural_key(*feature.natural_key()) == feature
    assert Link.objects.get_by_natural_key(*link.natural_key()) == link
    assert Area.objects.get_by_natural_key(*feature.area.natural_key()) == feature.area


def test_missing_links_are_the_ones_without_url():
    present, missing = LinkFactory(), LinkFactory(url="")
    assert not present.is_missing and missing.is_missing
    assert list(Link.objects.missing()) == [missing]
    assert list(Feature.objects.with_missing_links()) == [missing.feature]
    assert list(Feature.objects.with_missing_links(False)) == [present.feature]


def test_published_filters_out_drafts():
    FeatureFactory(release=ReleaseFactory(is_published=False))
    shown = FeatureFactory()
    assert list(Feature.objects.published()) == [shown]


def test_saving_stamps_updated_at():
    release = ReleaseFactory()
    before = release.updated_at
    release.title = "Retitled"
    release.save(update_fields=["title"])
    release.refresh_from_db()
    assert release.updated_at > before


def test_headings_fold_case_ampersands_and_punctuation():
    assert normalize_heading("Performance & Profiling") == normalize_heading(
        "performance and profiling"
    )
    assert normalize_heading("Front-End  APIs") == "front end apis"


def test_string_forms_name_things_as_editors_expect():
    link = LinkFactory(
        url="", label="Documentation", feature__title="Nice", feature__release__version="1.20"
    )
    assert str(link.feature.release) == "PyTorch 1.20"
    assert str(link.feature) == "Nice (1.20)"
    assert str(link) == "Documentation: missing"
    assert Stability.BETA.label == "Beta"
    assert AreaFactory(name="Mobile").__str__() == "Mobile"
    assert dt.date.today() >= link.created_at.date()

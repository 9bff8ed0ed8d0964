"""A release of thousands of features opens and saves in the admin: no inline of its features."""

import pytest
from django.urls import reverse

from releases.models import Area, Feature, Release, Track
from tests.admin_post import page_data
from tests.factories import AreaFactory, ReleaseFactory

pytestmark = pytest.mark.django_db


def release_with(count):
    """A release with ``count`` features, bulk-created (each with its own track)."""
    release = ReleaseFactory(version="9.0", is_published=False)
    area = AreaFactory()
    tracks = Track.objects.bulk_create(
        Track(name=f"Capability {n}", slug=f"capability-{n}", area=area) for n in range(count)
    )
    Feature.objects.bulk_create(
        Feature(
            release=release,
            title=f"Feature {n}",
            slug=f"feature-{n}",
            area=area,
            track=track,
            position=n % 30000 + 1,
        )
        for n, track in enumerate(tracks)
    )
    return release


@pytest.mark.parametrize("count", [3, 300])
def test_the_release_page_makes_the_same_queries_whatever_its_size(
    editor_client, django_assert_max_num_queries, count
):
    release = release_with(count)
    url = reverse("admin:releases_release_change", args=[release.pk])
    with django_assert_max_num_queries(12):
        page = editor_client.get(url)
    assert page.status_code == 200
    text = page.content.decode()
    listed = reverse("admin:releases_feature_changelist") + f"?release__id__exact={release.pk}"
    assert f'href="{listed}">{count} features</a>' in text
    assert "Feature 1" not in text  # features are listed on the feature list, not here


def test_a_release_of_5000_features_saves_and_its_feature_list_is_filtered(editor_client):
    release = release_with(5000)
    url = reverse("admin:releases_release_change", args=[release.pk])
    page = editor_client.get(url)
    assert len(page.content) < 100_000
    data = page_data(page)
    assert len(data) < 50  # nowhere near DATA_UPLOAD_MAX_NUMBER_FIELDS
    data["summary"] = "Five thousand features."
    response = editor_client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    release.refresh_from_db()
    assert release.summary == "Five thousand features."

    listed = editor_client.get(
        reverse("admin:releases_feature_changelist"), {"release__id__exact": release.pk}
    )
    assert listed.status_code == 200
    assert listed.context["cl"].result_count == 5000
    assert Area.objects.exists() and Release.objects.filter(pk=release.pk).exists()

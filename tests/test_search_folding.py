"""Search folds Unicode: what a reader cannot tell apart, search does not either."""

import importlib
import re
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection, models

from releases.models import Feature, Link, Track
from releases.text import fold, fold_all, searchable
from tests.factories import FeatureFactory

pytestmark = pytest.mark.django_db

# The same words as a reader sees them, spelt three other ways.
VARIANTS = [
    ("fft", "\uff46\uff46\uff54"),  # full-width ｆｆｔ
    ("profiler", "pro\ufb01ler"),  # the ﬁ ligature
    ("profiler", "pro\u00adfiler"),  # a soft hyphen
]


def test_fold_is_nfkc_casefolded_without_invisible_characters():
    assert fold("\uff26\uff26\uff34") == "fft"  # ＦＦＴ
    assert fold("Pro\ufb01ler") == "profiler"
    assert fold("Stra\u00dfe") == "strasse"
    for invisible in "\u00ad\u200b\u200c\u200d\u2060\ufeff":
        assert fold(f"pro{invisible}filer") == "profiler"
    assert fold_all("Title", "two\nlines") == "title\ntwo lines"


def api_titles(client, path, **params):
    response = client.get(path, {**params, "page_size": 100})
    assert response.status_code == 200, response.content[:300]
    return sorted(item.get("title") or item["name"] for item in response.json()["results"])


def page_titles(client, search):
    response = client.get("/features/", {"search": search})
    assert response.status_code == 200, response.content[:300]
    html = response.content.decode()
    found = re.findall(r'<a href="/releases/[^"]+#[^"]+">(.+?)</a>', html)
    return sorted(re.sub(r"</?mark>", "", title) for title in found)  # the words found, marked


@pytest.mark.parametrize(("plain", "variant"), VARIANTS)
def test_the_api_and_the_page_find_the_same_features_for_every_spelling(
    client, catalog, plain, variant
):
    found = api_titles(client, "/api/features/", search=plain)
    assert found  # the seed catalog has features about both
    assert api_titles(client, "/api/features/", search=variant) == found
    assert api_titles(client, "/api/features/", search=plain.upper()) == found
    assert page_titles(client, variant) == page_titles(client, plain) == found


@pytest.mark.parametrize(("plain", "variant"), VARIANTS)
def test_track_search_folds_too(client, catalog, plain, variant):
    found = api_titles(client, "/api/tracks/", search=plain)
    assert found
    assert api_titles(client, "/api/tracks/", search=variant) == found


def test_the_searched_text_is_folded_too(client, catalog):
    feature = FeatureFactory(title="\uff26\uff26\uff34 of Stra\u00dfe", summary="zero\u200bwidth")
    for query in ["fft strasse", "FFT", "STRASSE zerowidth", "ｚｅｒｏwidth"]:
        assert feature.title in api_titles(client, "/api/features/", search=query), query
    assert "strasse" in Track.objects.get(pk=feature.track_id).search_text


def test_a_word_that_folds_to_nothing_filters_nothing(client, catalog):
    everything = client.get("/api/features/").json()["count"]
    assert client.get("/api/features/", {"search": "\u00ad"}).json()["count"] == everything


def test_every_write_path_keeps_the_folded_text(catalog):
    feature = Feature.objects.first()
    feature.title = "Pro\ufb01ler one"
    feature.save()
    assert Feature.objects.get(pk=feature.pk).search_text.startswith("profiler one\n")
    Feature.objects.filter(pk=feature.pk).update(title="ＦＦＴ two")
    assert Feature.objects.get(pk=feature.pk).search_text.startswith("fft two\n")
    feature = Feature.objects.get(pk=feature.pk)
    feature.summary = "Soft\u00adhyphen"
    Feature.objects.bulk_update([feature], ["summary"])
    assert Feature.objects.get(pk=feature.pk).search_text == searchable(
        "ＦＦＴ two", "Soft\u00adhyphen"
    )
    assert (
        searchable("ＦＦＴ two", "Soft\u00adhyphen") == "fft two\nsofthyphen\nfft two\nsofthyphen"
    )
    created = FeatureFactory.build(release=feature.release, area=feature.area, title="Bulk ＦＦＴ")
    Feature.objects.bulk_create([created])
    assert Feature.objects.get(title="Bulk ＦＦＴ").search_text.startswith("bulk fft\n")


def test_the_migrations_fill_the_columns_of_existing_rows(catalog):
    # Emptied beneath the write path (Django's own update), as rows were before the columns.
    models.QuerySet.update(Feature.objects.all(), search_text="", title_search="")
    models.QuerySet.update(Track.objects.all(), search_text="")
    models.QuerySet.update(Link.objects.all(), search_text="", shown_label="")
    stemmed = importlib.import_module("releases.migrations.0019_search_words_and_shown_labels")
    stemmed.fill_search_words(apps, SimpleNamespace(connection=connection))
    # What the migrations wrote is what a save writes (prepare_save), for every row.
    for model in (Feature, Track, Link):
        for row in model.objects.all():
            written = [getattr(row, name) for name in model.derived_fields]
            row.prepare_save()
            assert written == [getattr(row, name) for name in model.derived_fields], row
    assert Link.objects.filter(label="RFC").exclude(shown_label__startswith="RFC #").count() == 0

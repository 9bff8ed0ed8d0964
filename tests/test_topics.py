"""Topics: what they accept, which topics each change-log entry is stored under, their feeds."""

import datetime as dt
import xml.etree.ElementTree as ET

import pytest

from releases import topics
from releases.declarations import public_models
from releases.models import ChangeTopic, Feature, PatchRelease, PublicChange, Release, UpgradeNote

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.mark.parametrize(
    "text",
    ["all", "releases", "releases:2.x", "releases:2.14", "compatibility:1.9", "schedule",
     "track:flexattention", "track:torch-fft", "api:torch.jit", "api:torch"],
)  # fmt: skip
def test_a_known_topic_reads_back_as_it_was_written(text):
    assert str(topics.parse(text)) == text


@pytest.mark.parametrize(
    "text, says",
    [
        ("", "a topic is needed"),
        ("everything", "is not a topic"),
        ("releases:2", "releases:2.x"),
        ("releases:2.14.1", "a minor such as"),
        ("releases:٢.x", "releases:2.x"),
        ("track:", "track's slug"),
        ("track:Flex Attention", "track's slug"),
        ("api:torch..jit", "dotted prefix"),
        ("api:", "dotted prefix"),
        ("all:x", "is not a topic"),
        ("track:" + "a" * 300, "at most 200"),
    ],
)
def test_an_unknown_topic_is_refused_saying_why(text, says):
    with pytest.raises(topics.BadTopic, match=says):
        topics.parse(text)


def test_all_among_others_is_all_and_repeats_count_once():
    assert topics.parse_all(["releases", "all", "track:x"]) == ["all"]
    assert topics.parse_all(["releases", "releases", "schedule"]) == ["releases", "schedule"]


def test_every_public_model_says_its_topic_families():
    for name, model in public_models().items():
        assert set(model.public.topics) <= set(topics.FAMILIES), name


def test_api_prefixes_follow_dots_not_letters():
    found = topics.prefixes("torch.onnx.export(dynamic_axes=...)")
    assert found == {"api:torch", "api:torch.onnx", "api:torch.onnx.export"}
    assert "api:torch.jit" not in topics.prefixes("torch.jitter")


def topics_of(entry):
    return set(ChangeTopic.objects.filter(change=entry).values_list("topic", flat=True))


def test_the_log_stores_each_entrys_topics(catalog):
    PatchRelease.objects.create(
        release=Release.objects.get(version="1.9"),
        version="1.9.5",
        release_date=dt.date(2021, 9, 1),
        source_url="https://pypi.org/simple/torch/",
    )
    entry = PublicChange.objects.filter(type="patch").latest("pk")
    assert topics_of(entry) == {"releases", "releases:1.x", "releases:1.9"}

    feature = Feature.objects.published().filter(track__isnull=False).first()
    old_track = feature.track.slug
    other = feature.track.__class__.objects.published().exclude(pk=feature.track_id).first()
    feature.track = other
    feature.save()
    moved = PublicChange.objects.filter(type="feature").latest("pk")
    # News on both tracks: the one it left and the one it joined.
    assert {f"track:{old_track}", f"track:{other.slug}"} <= topics_of(moved)

    feature.delete()
    gone = PublicChange.objects.filter(type="feature", action="deleted").latest("pk")
    assert f"track:{other.slug}" in topics_of(gone)


def test_an_upgrade_note_is_under_the_apis_it_names(full_catalog):
    note = UpgradeNote.objects.published().filter(apis__name__startswith="torch.jit").first()
    note.summary = note.summary + " (reworded)"
    note.save()
    entry = PublicChange.objects.filter(type="upgrade").latest("pk")
    assert {"api:torch", "api:torch.jit"} <= topics_of(entry)


def test_a_topics_feed_lists_its_changes_newest_first(catalog, client):
    for version in ("1.9.5", "1.9.6"):
        PatchRelease.objects.create(
            release=Release.objects.get(version="1.9"),
            version=version,
            release_date=dt.date(2021, 9, 1),
            source_url="https://pypi.org/simple/torch/",
        )
    feed = ET.fromstring(client.get("/feeds/changes/releases:1.9/").content)
    titles = [entry.find(f"{ATOM}title").text for entry in feed.iter(f"{ATOM}entry")]
    assert titles[:2] == ["patch 1.9.6: new", "patch 1.9.5: new"]
    other = ET.fromstring(client.get("/feeds/changes/releases:2.x/").content)
    assert not list(other.iter(f"{ATOM}entry"))
    everything = ET.fromstring(client.get("/feeds/changes/all/").content)
    assert len(list(everything.iter(f"{ATOM}entry"))) == 50


def test_a_bad_topic_feed_is_a_400_naming_the_topic(catalog, client):
    answer = client.get("/feeds/changes/track:/")
    assert answer.status_code == 400 and "topic" in answer.json()


def test_a_topics_feed_costs_the_same_queries_however_long_the_log(
    catalog, client, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6):
        assert client.get("/feeds/changes/compatibility/").status_code == 200

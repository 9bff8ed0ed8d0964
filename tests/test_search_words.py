"""
Search understands words: other forms of a word (Snowball stems), parts of words, ranking by
where a word is found (title, then summary, then a link's label), the matched words marked
on the pages, and link labels that say where they lead. The same on SQLite and PostgreSQL.
"""

import re

import pytest

from releases import labels, text
from releases.models import Feature, Link, LinkKind, Track
from tests.factories import FeatureFactory, LinkFactory, ReleaseFactory

pytestmark = pytest.mark.django_db


def test_searchable_keeps_the_folded_text_and_its_stems():
    derived = text.searchable("Deprecating torch.jit", "Compilers got faster")
    assert (
        derived
        == "deprecating torch.jit\ncompilers got faster\ndeprec torch jit\ncompil got faster"
    )


def test_marks_cut_a_text_into_matched_and_other_pieces():
    pieces = text.marks("The deprecation of torch.jit, compiled.", ["deprecated", "compile"])
    assert [piece for piece, matched in pieces if matched] == ["deprecation", "compiled"]
    assert "".join(piece for piece, _ in pieces) == "The deprecation of torch.jit, compiled."
    assert text.marks("FlexAttention", ["attention"]) == [("FlexAttention", True)]
    assert text.marks("nothing here", ["zebra"]) == [("nothing here", False)]


@pytest.fixture
def ranked(db):
    """Three features that say "deprecation": in the title, the summary, a link's label."""
    release = ReleaseFactory(version="3.0")
    in_links = FeatureFactory(release=release, title="Zeta exporter", position=1)
    LinkFactory(feature=in_links, label="Deprecation notice", kind=LinkKind.OTHER)
    in_summary = FeatureFactory(
        release=release, title="Beta exporter", summary="Its old entry point is deprecated."
    )
    in_title = FeatureFactory(release=release, title="Deprecation of the alpha exporter")
    FeatureFactory(release=release, title="Unrelated", summary="Nothing to see.")
    return [in_title.title, in_summary.title, in_links.title]


def titles(client, **params):
    response = client.get("/api/features/", params)
    assert response.status_code == 200, response.content[:300]
    return [item["title"] for item in response.json()["results"]]


@pytest.mark.parametrize("word", ["deprecated", "deprecation", "deprecating", "Deprecate"])
def test_every_form_of_a_word_finds_the_others_best_first(client, ranked, word):
    assert titles(client, search=word) == ranked


def test_a_title_match_comes_before_any_number_of_summary_matches(client, db):
    release = ReleaseFactory(version="3.0")
    FeatureFactory(release=release, title="Faster kernels", summary="Profiling the profiler.")
    FeatureFactory(release=release, title="A profiler", summary="Nothing else.")
    assert titles(client, search="profiling") == ["A profiler", "Faster kernels"]


def test_a_prefix_and_part_of_a_word_find_it(client, db):
    release = ReleaseFactory(version="3.0")
    FeatureFactory(release=release, title="torch.compile on Windows")
    FeatureFactory(release=release, title="FlexAttention for decoding")
    assert titles(client, search="compil") == ["torch.compile on Windows"]
    assert titles(client, search="compiling") == ["torch.compile on Windows"]
    assert titles(client, search="attention") == ["FlexAttention for decoding"]
    assert titles(client, search="torch.compile") == ["torch.compile on Windows"]
    assert titles(client, search="decoded Flex") == ["FlexAttention for decoding"]


def test_every_word_must_be_found_somewhere(client, ranked):
    assert titles(client, search="deprecated alpha") == ["Deprecation of the alpha exporter"]
    assert titles(client, search="deprecated nowhere") == []


def test_facets_and_counts_follow_the_same_search(client, ranked):
    body = client.get("/api/features/", {"search": "deprecated", "facets": "stability"}).json()
    assert body["count"] == 3
    assert sum(body["facets"]["stability"].values()) == 3


def test_a_drafts_words_find_nothing(client, db):
    public = FeatureFactory(release=ReleaseFactory(version="3.0"), title="Plain title")
    draft = FeatureFactory(
        release=ReleaseFactory(version="3.1", is_published=False),
        title="Zanzibarian secret",
        track=public.track,
    )
    LinkFactory(feature=draft, label="Zanzibarian notes")
    assert Track.objects.get(pk=public.track_id).features.count() == 2
    for path in ("/api/tracks/", "/api/features/", "/tracks/", "/features/"):
        response = client.get(path, {"search": "zanzibarian"})
        assert response.status_code == 200
        assert b"Plain title" not in response.content and b"Zanzibarian" not in response.content
    assert client.get("/api/tracks/", {"search": "plain"}).json()["count"] == 1


def test_a_link_label_found_through_what_it_shows(client, db):
    feature = FeatureFactory(release=ReleaseFactory(version="3.0"), title="Uneven inputs")
    LinkFactory(
        feature=feature,
        label="RFC",
        kind=LinkKind.RFC,
        url="https://github.com/pytorch/pytorch/issues/38174",
    )
    assert titles(client, search="38174") == ["Uneven inputs"]


def test_the_features_page_marks_the_words_it_found(client, ranked):
    html = client.get("/features/", {"search": "deprecated"}).content.decode()
    assert "<mark>Deprecation</mark> of the alpha exporter" in html
    assert "Its old entry point is <mark>deprecated</mark>." in html
    order = [html.index(title) for title in ("alpha exporter", "Beta exporter", "Zeta exporter")]
    assert order == sorted(order)


def test_the_state_and_track_pages_mark_track_names(client, ranked):
    track = Feature.objects.get(title="Deprecation of the alpha exporter").track
    for path in ("/tracks/", "/releases/3.0/state/"):
        html = client.get(path, {"search": "deprecate"}).content.decode()
        assert f">{track.name}<" not in html
        assert re.search(r"<mark>Deprecation</mark>", html), path


def test_marking_escapes_the_text(client, db):
    FeatureFactory(release=ReleaseFactory(version="3.0"), title="<b>Bold</b> profiler")
    html = client.get("/features/", {"search": "profiler"}).content.decode()
    assert "&lt;b&gt;Bold&lt;/b&gt; <mark>profiler</mark>" in html


@pytest.mark.parametrize(
    ("label", "url", "kind", "shown"),
    [
        ("RFC", "https://github.com/pytorch/pytorch/issues/39675", "rfc", "RFC #39675"),
        (
            "#174813",
            "https://github.com/pytorch/pytorch/pull/174813",
            "pull_request",
            "Pull request #174813",
        ),
        ("Issue", "https://github.com/pytorch/pytorch/issues/30632", "issue", "Issue #30632"),
        ("docs", "https://pytorch.org/docs/master/func.html", "documentation", "Documentation"),
        ("Link", "https://pytorch.org/mobile/home/", "other", "pytorch.org/mobile/home"),
        (
            "https://download.pytorch.org/whl",
            "https://download.pytorch.org/whl",
            "other",
            "download.pytorch.org/whl",
        ),
        (
            "Link",
            "https://www.example.com/a/b/c/d/e/f/g/h/how-to-run-the-new-exporter-on-phones.html",
            "other",
            "example.com: how to run the new exporter on phones",
        ),
        ("Tutorial", "https://pytorch.org/tutorials/x.html", "tutorial", "Tutorial"),
        ("Link", "", "other", "Link"),  # a missing link keeps what the post promised
    ],
)
def test_a_label_that_says_nothing_is_shown_as_where_it_leads(label, url, kind, shown):
    kind_label = LinkKind(kind).label
    assert labels.shown_label(label, url, kind_label, kind == LinkKind.OTHER) == shown


def test_the_api_and_the_release_page_show_the_telling_label(client, db):
    feature = FeatureFactory(release=ReleaseFactory(version="3.0"), title="Pipelines")
    link = LinkFactory(
        feature=feature,
        label="RFC",
        kind=LinkKind.RFC,
        url="https://github.com/pytorch/pytorch/issues/44827",
    )
    item = client.get("/api/features/", {"search": "pipelines"}).json()["results"][0]
    assert [(x["label"], x["shown_label"]) for x in item["links"]] == [("RFC", "RFC #44827")]
    assert '">RFC #44827</a>' in client.get("/releases/3.0/").content.decode()
    assert Link.objects.get(pk=link.pk).natural_key()[-2] == "RFC"  # the post's label is kept

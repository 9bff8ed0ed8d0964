"""
Issue 43: a release page says what it holds once, and nothing it does not hold. 2.14 repeated
"The post's label: API Unstable" under each of its 50 features and showed no stage counts;
2.15 (out, its announcement not read) showed an empty "What it runs on" and five empty lists.
"""

import re

import pytest

pytestmark = pytest.mark.django_db


def text_of(response):
    assert response.status_code == 200
    main = response.content.decode().split('<main id="main">')[1].split("</main>")[0]
    return " ".join(re.sub(r"<[^>]+>", " ", main).split())


def test_a_label_every_feature_shares_is_said_once_with_the_stage_counts(client, full_catalog):
    page = client.get("/releases/2.14/").content.decode()
    assert page.count("carries the post's label “API Unstable”") == 1
    assert "The post's label:" not in page
    counts = re.search(r'<ul class="counts stage-counts"[^>]*>(.*?)</ul>', page, re.S).group(1)
    shown = " ".join(re.sub(r"<[^>]+>", " ", counts).split())
    assert shown == "Stable 0 Beta 0 Prototype 0 Unstable 50 No stage 5"
    assert "?release=2.14&amp;stability=unstable" in counts


def test_a_release_with_features_of_several_labels_keeps_each(client, full_catalog):
    page = client.get("/releases/1.5/").content.decode()  # Experimental and Stable
    assert "carries the post's label" not in page
    assert page.count("The post's label: “Experimental”") > 1


def test_a_release_out_without_its_announcement_shows_no_empty_parts(client, full_catalog):
    text = text_of(client.get("/releases/2.15/"))
    assert "No features of 2.15 are recorded: its announcement has not been read yet." in text
    assert "The features by what changed" not in text and "None." not in text
    assert "What it runs on" not in text and "Schedule Release branch cut" in text
    assert "Sources: ." not in text

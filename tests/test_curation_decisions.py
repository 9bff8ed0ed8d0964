"""The editors' decision files (``releases.curation``, ``manage.py curate``)."""

import json

import pytest
from django.core.management import CommandError, call_command

from releases.models import ClaimStatus, Feature, Stability, StageClaim, StageSource, Track

from .factories import AreaFactory, FeatureFactory, ReleaseFactory


def write(folder, name, content):
    (folder / name).write_text(json.dumps(content), encoding="utf-8")


@pytest.fixture
def decisions(db, tmp_path):
    area = AreaFactory(slug="compiler", name="Compiler")
    older = ReleaseFactory(version="3.1", is_published=False)
    newer = ReleaseFactory(version="3.2", is_published=False)
    first = FeatureFactory(release=older, slug="jit", title="JIT", area=area)
    second = FeatureFactory(release=newer, slug="jit-again", title="JIT, again", area=area)
    write(tmp_path, "areas.json", {"compiler": {"name": "Compiler", "description": "Compilers."}})
    write(
        tmp_path,
        "tracks.json",
        {"the-jit": {"name": "The JIT", "area": "compiler", "description": "Compiling."}},
    )
    return tmp_path, older, newer, first, second


def test_a_track_first_used_by_a_later_release_survives_the_earlier_one(decisions):
    folder, older, newer, first, second = decisions
    write(folder, "3.1.json", {"version": "3.1", "features": []})
    write(
        folder,
        "3.2.json",
        {"version": "3.2", "features": [{"slug": second.slug, "track": "the-jit"}]},
    )

    call_command("curate", str(folder))

    second.refresh_from_db()
    assert second.track.slug == "the-jit"
    # the track the importer made for the feature now on the shared track is gone
    assert not Track.objects.filter(features__isnull=True).exists()


def test_accepting_a_claim_adds_its_appearance_with_the_editors_summary(decisions):
    folder, older, newer, first, second = decisions
    StageClaim.objects.create(
        release=newer, subject="the JIT", stability=Stability.STABLE, phrase="is now stable", line=7
    )
    claim = {"subject": "the JIT", "line": 7, "status": "accepted", "track": "the-jit"}
    write(folder, "3.1.json", {"version": "3.1", "features": [{"slug": "jit", "track": "the-jit"}]})
    write(
        folder,
        "3.2.json",
        {"version": "3.2", "claims": [{**claim, "reason": "Stated.", "summary": "Our words."}]},
    )

    call_command("curate", str(folder))

    appearance = Feature.objects.get(release=newer, track__slug="the-jit")
    assert (appearance.stability, appearance.stage_source) == (Stability.STABLE, StageSource.CLAIM)
    assert appearance.summary == "Our words."
    assert StageClaim.objects.get(release=newer).status == ClaimStatus.ACCEPTED


def test_a_claim_is_found_by_its_line_and_stage_when_its_subject_changed(decisions):
    folder, older, newer, first, second = decisions
    StageClaim.objects.create(
        release=newer, subject="JIT again", stability=Stability.BETA, phrase="in beta", line=3
    )
    claim = {"subject": "JIT", "line": 3, "stability": "beta", "status": "rejected"}
    write(folder, "3.2.json", {"version": "3.2", "claims": [{**claim, "reason": "Not it."}]})

    call_command("curate", str(folder))

    assert StageClaim.objects.get(release=newer).status == ClaimStatus.REJECTED


def test_rejecting_a_claim_the_importer_no_longer_finds_is_nothing_to_do(decisions):
    folder, *_ = decisions
    claim = {"subject": "gone", "line": 9, "status": "rejected", "reason": "Misread."}
    write(folder, "3.2.json", {"version": "3.2", "claims": [claim]})

    call_command("curate", str(folder))


def test_accepting_a_claim_the_catalog_does_not_hold_is_an_error(decisions):
    folder, *_ = decisions
    claim = {"subject": "gone", "line": 9, "status": "accepted", "track": "the-jit", "reason": "."}
    write(folder, "3.2.json", {"version": "3.2", "claims": [claim]})

    with pytest.raises(CommandError, match="3.2.json claims"):
        call_command("curate", str(folder))

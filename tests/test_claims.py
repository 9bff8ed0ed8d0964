"""Stages stated in a post's prose: found, attached, reviewed by editors, and then counted."""

import textwrap
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from releases.importing.claims import find_claims, names_match
from releases.models import ClaimStatus, Feature, StageClaim, Track
from tests.conftest import http

# --- finding claims in sentences (our own sample sentences) ----------------------------------


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("The Widget API, a beta in 3.1, is now stable.", [("Widget API", "stable")]),
        ("The new tensor inspector graduates to beta today.", [("tensor inspector", "beta")]),
        ("In 3.4, the torch.shapes module is moving to a stable release.",
         [("torch.shapes module", "stable")]),
        ("This release adds stable support for sharded checkpoints, and more.",
         [("sharded checkpoints", "stable")]),
        ("We shipped Stable level retry handling for collectives (see the docs).",
         [("retry handling for collectives", "stable")]),
        ("Several features moved to stable, including the tape recorder, lazy modules and "
         "a number of other features in torch.dist like bucket tuning.",
         [("tape recorder", "stable"), ("lazy modules", "stable"),
          ("bucket tuning", "stable")]),
        ("TorchWidgets is in beta.", [("TorchWidgets", "beta")]),
        ("Kernel tracing is now available as a prototype.", [("Kernel tracing", "prototype")]),
        ("Gains come with the beta half-precision shape support.",
         [("half-precision shape", "beta")]),
    ],
)  # fmt: skip
def test_sentences_that_state_a_stage_are_claims(sentence, expected):
    found = [(claim.subject, claim.stability) for claim in find_claims(sentence, 7)]
    assert found == expected
    assert all(claim.line == 7 for claim in find_claims(sentence, 7))


@pytest.mark.parametrize(
    "sentence",
    [
        "Prototype features gather feedback before we graduate them to beta or stable.",
        "Besides the stable and beta features above, nightlies hold prototype features.",
        "Complex gradients, released as a beta in PyTorch 3.0, keep improving.",
        "The prototype features in this post ship with the release.",
        "Stable releases come every quarter.",
        "The beta release of sparse tensors will add a module.",
    ],
)
def test_sentences_about_stages_in_general_are_not_claims(sentence):
    assert find_claims(sentence, 1) == []


def test_this_feature_names_the_section_it_is_written_under():
    (claim,) = find_claims("This feature is in beta and may still change.", 3)
    assert (claim.subject, claim.stability, claim.names_section) == ("", "beta", True)


def test_a_subject_names_a_title_by_its_words():
    assert names_match("RPC based profiling", "Enhancements to RPC-based Profiling") == 1.0
    assert names_match("memory profiler", "Memory Profiler") == 1.0
    # A title whose words are only part of the subject names it less well.
    assert names_match("memory profiler", "PyTorch Profiler") < 1.0
    assert names_match("lazy modules", "Sparse views") == 0.0


# --- importing a post with claims ------------------------------------------------------------

POST = """\
---
title: 'PyTorch 7.1 released'
date: 2031-05-06
---

The release brings several things. In 7.1, the memory profiler is now stable, and
stable support for RPC based profiling arrives too. Our frobnicator is now in beta.

# Frontend APIs

## [Beta] Shape explainer

Explains shapes. The shape explainer graduates to beta after a prototype in 7.0.

* Documentation | [Link](https://example.org/docs/explain)
"""


@pytest.fixture
def post(tmp_path):
    path = tmp_path / "2031-5-6-pytorch-7-1.md"
    path.write_text(textwrap.dedent(POST), encoding="utf-8")
    return path


def run(*args):
    out = StringIO()
    call_command("import_post", *map(str, args), stdout=out)
    return out.getvalue()


def claims_of(version):
    return {
        claim.subject: claim
        for claim in StageClaim.objects.filter(release__version=version).select_related(
            "track", "feature"
        )
    }


def test_import_records_claims_attached_to_what_they_name(catalog, post):
    output = run(post, "--publish")
    claims = claims_of("7.1")
    assert set(claims) == {"memory profiler", "RPC based profiling", "frobnicator",
                           "shape explainer"}  # fmt: skip
    # A catalog track, by its appearances' names; nothing changes until an editor accepts.
    assert claims["memory profiler"].track.slug == "memory-profiler"
    assert claims["RPC based profiling"].track.slug == "rpc-profiling"
    assert claims["frobnicator"].track is None
    assert {c.status for s, c in claims.items() if s != "shape explainer"} == {"pending"}
    assert not Feature.objects.filter(release__version="7.1", track__slug="rpc-profiling")
    # A claim in a feature's own section that agrees with its tag confirms it.
    explainer = claims["shape explainer"]
    assert explainer.feature.slug == "shape-explainer"
    assert explainer.status == ClaimStatus.ACCEPTED
    assert "Stage claims in the prose: 4 found, 4 new, 3 awaiting an editor's review" in output
    assert "line 6: 'RPC based profiling' stable (track rpc-profiling; to review)" in output
    # Where each sentence is: the file's own line numbers.
    assert claims["memory profiler"].line == claims["frobnicator"].line - 1 == 6
    assert explainer.line == 13


def test_reimport_keeps_decisions_and_adds_no_duplicates(catalog, post):
    run(post)
    claim = StageClaim.objects.get(subject="frobnicator")
    claim.status = ClaimStatus.REJECTED
    claim.save()
    output = run(post)
    assert StageClaim.objects.filter(release__version="7.1").count() == 4
    assert StageClaim.objects.get(subject="frobnicator").status == ClaimStatus.REJECTED
    assert "4 found, 0 new" in output


def accept_in_admin(editor_client, *claims, action="accept_claims"):
    return editor_client.post(
        reverse("admin:releases_stageclaim_changelist"),
        {"action": action, "_selected_action": [claim.pk for claim in claims]},
        follow=True,
    )


def test_an_accepted_claim_is_an_appearance_and_rejecting_it_takes_it_back(
    editor_client, post, live_server
):
    run(post, "--publish")
    claim = claims_of("7.1")["RPC based profiling"]
    page = accept_in_admin(editor_client, claim)
    assert "Accepted 1 claim(s)." in page.content.decode()

    track = http(live_server, "/api/tracks/rpc-profiling/").json()
    assert track["appearances"][-1] == {
        "release": "7.1",
        "stability": "stable",
        "stage_source": "claim",
        "feature": "rpc-profiling",
        "title": "RPC profiling",
    }
    assert track["stability"] == "stable"
    feature = Feature.objects.get(release__version="7.1", track__slug="rpc-profiling")
    record = feature.history.latest()
    assert (record.history_user.username, record.history_change_reason) == (
        "eddie",
        "accepted in the admin",
    )

    accept_in_admin(editor_client, claim, action="reject_claims")
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.REJECTED and claim.feature is None
    track = http(live_server, "/api/tracks/rpc-profiling/").json()
    assert "7.1" not in [appearance["release"] for appearance in track["appearances"]]


def test_accepting_a_claim_that_names_no_track_says_what_to_do(editor_client, post):
    run(post)
    claim = claims_of("7.1")["frobnicator"]
    page = accept_in_admin(editor_client, claim).content.decode()
    assert "names no track yet: choose the track it is about" in page
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING
    # Given a track, it is accepted.
    claim.track = Track.objects.get(slug="torch-fft")
    claim.save()
    accept_in_admin(editor_client, claim)
    feature = Feature.objects.get(release__version="7.1", track__slug="torch-fft")
    assert (feature.stability, feature.stage_source) == ("beta", "claim")


def test_a_claim_can_change_a_tagged_features_stage_and_rejecting_restores_the_tag(
    editor_client, post
):
    run(post)
    explainer = Feature.objects.get(release__version="7.1", slug="shape-explainer")
    claim = StageClaim.objects.create(
        release=explainer.release, subject="shape explainer", stability="stable",
        phrase="is now stable", line=40, feature=explainer,
    )  # fmt: skip
    accept_in_admin(editor_client, claim)
    explainer.refresh_from_db()
    assert (explainer.stability, explainer.stage_source) == ("stable", "claim")
    accept_in_admin(editor_client, claim, action="reject_claims")
    explainer.refresh_from_db()
    assert (explainer.stability, explainer.stage_source) == ("beta", "tag")


# --- the seed posts' claims, as the fixtures carry them --------------------------------------


def test_the_seed_posts_prose_stages_are_appearances(api):
    rpc = api("/api/tracks/rpc-profiling/").json()
    assert [(a["release"], a["stability"], a["stage_source"]) for a in rpc["appearances"]] == [
        ("1.6", "prototype", "section"),
        ("1.7", "beta", "tag"),
        ("1.8", "stable", "claim"),
    ]
    nccl = api("/api/tracks/nccl-reliability-async-error-timeout-handling/").json()
    assert [(a["release"], a["stability"]) for a in nccl["appearances"]] == [
        ("1.7", "beta"),
        ("1.8", "stable"),
    ]
    compare = api("/api/compare/", **{"from": "1.6", "to": "1.9"}).json()
    added = {item["track"]: item for item in compare["added"]}
    assert added["torch-fft"]["stability"] == "stable"
    promoted = {item["track"]: item for item in compare["promoted"]}
    assert (promoted["rpc-profiling"]["before"], promoted["rpc-profiling"]["after"]) == (
        "prototype",
        "stable",
    )


def test_the_fixtures_hold_every_seed_claim_accepted_only_where_unambiguous(catalog):
    claims = StageClaim.objects.select_related("release", "track")
    by_status = {}
    for claim in claims:
        by_status.setdefault(claim.status, set()).add((claim.release.version, claim.subject))
    # The 1.7 post lists seven features that moved to stable; two name a catalog track.
    assert {
        ("1.7", "memory profiler"),
        ("1.7", "user async functions in RPC"),
        ("1.8", "RPC based profiling"),
        ("1.8", "async error/timeout handling"),
        ("1.9", "Complex Autograd"),
        ("1.9", "PyTorch Profiler"),
    } <= by_status["accepted"]
    assert ("1.7", "RRef helper") in by_status["pending"]
    assert all(claim.track is None for claim in claims if claim.status == "pending")


def test_an_introduced_library_imports_with_its_prose_stage_confirmed(db, tmp_path):
    from tests.conftest import SAMPLES_DIR

    path = tmp_path / "2031-1-9-pytorch-2-30.md"
    path.write_text((SAMPLES_DIR / "structure.md").read_text())
    output = run(path)
    weave = Feature.objects.get(release__version="2.30", title="TorchWeave")
    assert (weave.stability, weave.stage_source) == ("beta", "claim")
    (claim,) = StageClaim.objects.filter(release__version="2.30")
    assert (claim.feature, claim.status) == (weave, ClaimStatus.ACCEPTED)
    assert "'TorchWeave' beta (torchweave; states its own section's stage)" in output


def test_a_tracks_feed_shows_the_promotion_an_accepted_claim_made(api):
    feed = api("/feeds/tracks/rpc-profiling/")
    assert feed.status == 200
    body = feed.body.decode()
    assert "RPC profiling: Beta → Stable in 1.8" in body
    assert "states this stage in its prose" in body

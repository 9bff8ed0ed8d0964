"""Stages stated in a post's prose: found, attached, reviewed by editors, and then counted."""

import textwrap
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from releases.importing.claims import find_claims, names_match
from releases.importing.parse import parse_file
from releases.models import ClaimStatus, Feature, StageClaim, Track
from tests.conftest import SEED_RELEASES, http

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
        ("Several tools such as Loss scaling, Gradient clipping, and Warm restarts have moved "
         "from beta to stable.",
         [("Loss scaling", "stable"), ("Gradient clipping", "stable"),
          ("Warm restarts", "stable")]),
        ("Along with 4.5, we are releasing beta versions of Shardkit and Widget Loader.",
         [("Shardkit", "beta"), ("Widget Loader", "beta")]),
        ("We are glad to present the Beta release of Shardkit.", [("Shardkit", "beta")]),
        ("The 4.5 release holds a prototype release of torch.plan, a planner for graphs, and "
         "torch.plan-based fusion.",
         [("torch.plan", "prototype"), ("torch.plan-based fusion", "prototype")]),
        ("Beta includes the planner as the default scheduler, Slab allocator and Tuning.",
         [("planner", "beta"), ("Slab allocator", "beta"), ("Tuning", "beta")]),
        ("New prototype features across Ringcast, Meshkit and 3D parallel.",
         [("Ringcast", "prototype"), ("Meshkit", "prototype"), ("3D parallel", "prototype")]),
        ("Graphwise, a new beta library for graphs, ships too.", [("Graphwise", "beta")]),
        ("Cloud readers are still in the beta phase.", [("Cloud readers", "beta")]),
        ("Loader3 became available in prototype mode.", [("Loader3", "prototype")]),
        ("Static graph caching available in stable.", [("Static graph caching", "stable")]),
        ("Warm restarts is now natively supported and a stable feature.",
         [("Warm restarts", "stable")]),
        ("For example, the FX-based packer is releasing as a prototype.",
         [("FX-based packer", "prototype")]),
        ("We are launching the Lite Runner as a prototype feature in this release.",
         [("Lite Runner", "prototype")]),
        ("The proposal is to mark Remote execution as stable and no longer a prototype.",
         [("Remote execution", "stable")]),
        ("Version 4.5 brings beta level support for quaternion tensors including q64.",
         [("quaternion tensors", "beta")]),
        ("The sparse core now has prototype support for block (2:4) sparsity on GPUs.",
         [("block (2:4) sparsity on GPUs", "prototype")]),
        ("Alongside the new backend, the ARM wheels that have been around for a while are now "
         "an official prototype feature.", [("ARM wheels", "prototype")]),
        ("The Slab allocator is now at parity with malloc, and the APIs have been moved to "
         "'stable'.", [("Slab allocator", "stable")]),
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
        "Our next beta release of PyTorch ships in May.",
    ],
)
def test_sentences_about_stages_in_general_are_not_claims(sentence):
    assert find_claims(sentence, 1) == []


def test_a_tagged_opening_highlight_claims_its_stage():
    from releases.importing.claims import tagged_item

    claim = tagged_item("3- (Beta) Support for fast transforms via torch.xfft", 4)
    assert (claim.subject, claim.stability, claim.line) == (
        "fast transforms via torch.xfft",
        "beta",
        4,
    )
    claim = tagged_item("[Prototype] Remote tracing now supported", 1)
    assert (claim.subject, claim.stability) == ("Remote tracing", "prototype")
    assert tagged_item("Faster startup on every platform", 1) is None


def test_two_sentences_saying_it_are_two_claims_and_this_stage_feature_is_its_section():
    found = find_claims(
        "Version 4.5 brings beta level support for quaternion tensors. The beta release of "
        "quaternion tensors will support the common ops. This prototype feature may change.",
        2,
    )
    assert [(c.subject, c.stability, c.names_section) for c in found] == [
        ("quaternion tensors", "beta", False),
        ("quaternion tensors", "beta", False),
        ("", "prototype", True),
    ]


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
        "kind": "feature",
        "stability": "stable",
        "stage_label": claim.phrase,  # the post's words that state it
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


def test_the_fixtures_hold_every_seed_claim_accepted_only_where_unambiguous(catalog, seeds):
    """
    Every claim the importer reads in a seed post is in the fixtures, decided by an editor
    (fixtures/curation/), and an accepted one is its track's appearance at the claimed stage.
    """
    held = {
        (c.release.version, c.line, c.subject, c.stability): c
        for c in StageClaim.objects.select_related("release", "feature", "track")
    }
    read = {
        (version, c.line, c.subject, c.stability)
        for version in SEED_RELEASES
        for c in parse_file(seeds / f"pytorch-{version}-release-post.md").claims
    }
    assert set(held) == read
    assert not [key for key, claim in held.items() if claim.status == ClaimStatus.PENDING]
    for key, claim in held.items():
        if claim.status == ClaimStatus.ACCEPTED:
            assert claim.feature.release == claim.release, key
            assert claim.feature.track == claim.track, key
            assert claim.feature.stability == claim.stability, key
    accepted = {
        (version, subject): held[version, line, subject, stability].track.slug
        for version, line, subject, stability in held
        if held[version, line, subject, stability].status == ClaimStatus.ACCEPTED
    }
    # The 1.7 post lists seven features that moved to stable: the RPC framework's parts share
    # its track; the rest are tracks of their own. Its A100/TF32 highlight, tagged (Prototype)
    # with no section, is an appearance an editor added on a track of its own.
    assert {
        ("1.7", "memory profiler"): "memory-profiler",
        ("1.7", "user async functions in RPC"): "rpc-asynchronous-user-functions",
        ("1.7", "Per-RPC timeout"): "distributed-rpc",
        ("1.7", "RRef helper"): "distributed-rpc",
        ("1.7", "Nvidia A100 generation GPUs and native TF32 format"): "a100-gpus-and-tf32",
        ("1.8", "RPC based profiling"): "rpc-profiling",
        ("1.8", "async error/timeout handling"): "nccl-reliability-async-error-timeout-handling",
        ("1.9", "Complex Autograd"): "complex-autograd",
        ("1.9", "PyTorch Profiler"): "pytorch-profiler",
    }.items() <= accepted.items()
    a100 = Feature.objects.get(release__version="1.7", track__slug="a100-gpus-and-tf32")
    assert (a100.stability, a100.stage_source, a100.area.slug) == (
        "prototype",
        "claim",
        "hardware-support",
    )
    assert a100.summary


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

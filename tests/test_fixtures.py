"""The committed fixtures load, and the seed releases hold what their four posts announce."""

import json
from collections import Counter

import pytest
from django.core.management import call_command

from releases.management.commands.load_catalog import fixture_files
from releases.models import (
    Area,
    Companion,
    Feature,
    Link,
    PatchRelease,
    Release,
    ScheduleDate,
    Stability,
    Support,
)
from tests.conftest import SEED_RELEASES
from tests.test_release_data import VERSIONS

pytestmark = pytest.mark.django_db

# The seed posts' tagged features (what `import_post --compare` reads from each), and the
# appearances their prose claims that an editor accepted for a capability with no section of
# its own: 1.7's seven (six "moved to stable" in its opening, A100/TF32 a prototype highlight),
# 1.8's two distributed features declared stable.
FEATURES_PER_RELEASE = {"1.6": 14, "1.7": 21 + 7, "1.8": 14 + 2, "1.9": 18}
RELEASE_DATES = {"1.6": "2020-07-28", "1.7": "2020-10-27", "1.8": "2021-03-04", "1.9": "2021-06-15"}


def objects_in_fixtures(model):
    """How many objects of ``model`` ("releases.feature") the committed fixture files hold."""
    return sum(
        item["model"] == model
        for path in fixture_files()
        for item in json.loads(path.read_text(encoding="utf-8"))
    )


def test_every_fixture_loads_into_an_empty_database_and_loads_again_idempotently():
    call_command("load_catalog", verbosity=0)
    counts = (Release.objects.count(), Feature.objects.count(), Link.objects.count())
    call_command("load_catalog", verbosity=0)
    assert (Release.objects.count(), Feature.objects.count(), Link.objects.count()) == counts
    announced = Release.objects.filter(announced=True, planned=False)
    assert sorted(announced.values_list("version", flat=True), key=VERSIONS.index) == VERSIONS
    assert counts == (
        objects_in_fixtures("releases.release"),
        objects_in_fixtures("releases.feature"),
        objects_in_fixtures("releases.link"),
    )
    assert Feature.history.count() == counts[1]  # loaded once, recorded once
    # What a release runs on and pairs with (issue 32) loads once too.
    for model in (Support, Companion, PatchRelease, ScheduleDate):
        label = f"releases.{model._meta.model_name}"
        assert model.objects.count() == objects_in_fixtures(label) > 0, label


def test_the_seed_catalog_is_the_four_seed_releases_and_nothing_else(catalog):
    assert sorted(Release.objects.values_list("version", flat=True)) == SEED_RELEASES
    assert Feature.objects.count() == sum(FEATURES_PER_RELEASE.values())


def test_fixtures_carry_no_primary_keys():
    import json

    for path in fixture_files():
        assert all("pk" not in item for item in json.loads(path.read_text())), path


def test_releases_have_their_public_facts(catalog):
    releases = {release.version: release for release in Release.objects.all()}
    assert {
        version: str(release.release_date) for version, release in releases.items()
    } == RELEASE_DATES
    assert all(release.is_published for release in releases.values())
    assert all(release.summary and release.highlight_list for release in releases.values())
    assert releases["1.9"].contributor_count == 398
    assert releases["1.9"].commit_count == 3400


def test_every_announced_feature_is_there(catalog):
    counts = Counter(Feature.objects.values_list("release__version", flat=True))
    assert counts == FEATURES_PER_RELEASE
    assert all(Feature.objects.values_list("summary", flat=True))


def test_the_six_prototypes_of_1_8(catalog):
    titles = set(
        Feature.objects.filter(release__version="1.8", stability=Stability.PROTOTYPE).values_list(
            "title", flat=True
        )
    )
    assert titles == {
        "ZeroRedundancyOptimizer",
        "Process Group NCCL Send/Recv",
        "CUDA-support in RPC using TensorPipe",
        "Remote Module",
        "PyTorch Mobile Lite Interpreter",
        "FX Graph Mode Quantization",
    }


def test_the_nine_missing_links_of_1_7(catalog):
    missing = Counter(
        Link.objects.missing()
        .filter(feature__release__version="1.7")
        .values_list("feature__slug", flat=True)
    )
    assert missing == {
        "benchmark-utilities": 1,
        "nccl-reliability-async-error-timeout-handling": 2,
        "torchscript-rpc-remote-and-rpc-sync": 3,
        "distributed-optimizer-with-torchscript-support": 3,
    }


def test_untagged_library_releases_have_no_stability(catalog):
    libraries = Feature.objects.filter(release__version="1.6", stability="")
    assert {(f.title, f.area.slug) for f in libraries} == {
        ("torchvision 0.7", "torchvision"),
        ("torchaudio 0.6", "torchaudio"),
    }


def test_headings_of_different_posts_land_in_one_area(catalog):
    frontend = Area.objects.get(slug="frontend-apis")
    versions = set(frontend.features.values_list("release__version", flat=True))
    assert versions == {"1.6", "1.7", "1.8", "1.9"}


def test_links_keep_their_exact_urls(catalog):
    amp = Feature.objects.get(release__version="1.6", slug="automatic-mixed-precision-amp-training")
    assert {(link.kind, link.url) for link in amp.links.all()} == {
        ("design_doc", "https://github.com/pytorch/pytorch/issues/25081"),
        ("documentation", "https://pytorch.org/docs/stable/amp.html"),
        ("usage_examples", "https://pytorch.org/docs/stable/notes/amp_examples.html"),
    }


@pytest.mark.parametrize("version", sorted(FEATURES_PER_RELEASE))
def test_fixtures_agree_with_what_the_importer_reads_from_each_seed_post(
    catalog, seeds, version, capsys
):
    post = seeds / f"pytorch-{version}-release-post.md"
    call_command("import_post", str(post), "--compare")
    assert "no difference" in capsys.readouterr().out

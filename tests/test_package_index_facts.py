"""
The fixtures against what the package index listed on 2026-11-28 (the look-ups recorded in
tests/answer_keys/package-index-2026-11-28.json) and against the pip commands of PyTorch's
install page for previous versions (previous-versions-install.json): release by release, the
wheels, patches and install builds the fixtures hold are exactly what those sources show.
"""

import json
import re
from pathlib import Path

import pytest

from releases.importing.simple_index import platform_of

ROOT = Path(__file__).resolve().parent.parent
INDEX = json.loads((ROOT / "tests/answer_keys/package-index-2026-11-28.json").read_text())
INSTALL = json.loads((ROOT / "tests/answer_keys/previous-versions-install.json").read_text())
PAGE = f"https://github.com/{INSTALL['repo']}/blob/{INSTALL['commit']}/{INSTALL['path']}"


def fixture(version):
    return json.loads((ROOT / f"fixtures/pytorch-{version}.json").read_text(encoding="utf-8"))


def minor(version):
    return ".".join(version.split(".")[:2])


def measured():
    """{(torch, platform, python)} that the look-ups show a wheel of (the main index's)."""
    found = set()
    for lookup in INDEX["lookups"]:
        if lookup["package"] != "torch" or not lookup["python"]:
            continue
        tags = lookup["platform"] if isinstance(lookup["platform"], list) else [lookup["platform"]]
        (platform,) = {platform_of(tag) for tag in tags}
        python = lookup["python"] + ("t" if (lookup["abi"] or "").endswith("t") else "")
        found |= {(version, platform, python) for version in lookup["versions"]}
    return found


def documented():
    """{(torch, variant, platform): line} of the install page's variant builds (1.8.2 aside)."""
    found = {}
    for entry in INSTALL["versions"]:
        if entry["torch"] == "1.8.2":
            continue  # the LTS line's own index, not a variant's
        for build in entry["builds"]:
            if build["variant"] == "default":
                continue
            platforms = ["linux-x86_64"] + ([] if build["linux_only"] else ["windows-amd64"])
            for platform in platforms:
                found.setdefault((entry["torch"], build["variant"], platform), build["line"])
    return found


MEASURED, DOCUMENTED = measured(), documented()
RELEASES = sorted(
    {minor(v) for v, _p, _py in MEASURED} | {minor(v) for v, _va, _p in DOCUMENTED},
    key=lambda v: tuple(int(p) for p in v.split(".")),
)


@pytest.mark.parametrize("release", RELEASES)
def test_the_wheels_of_each_release_are_what_the_sources_show(release):
    rows = [item["fields"] for item in fixture(release) if item["model"] == "releases.wheel"]
    index_rows = {
        (r["torch_version"], r["platform"], r["python"]) for r in rows if r["evidence"] == "index"
    }
    assert index_rows == {w for w in MEASURED if minor(w[0]) == release}
    assert {r["source_url"] for r in rows if r["evidence"] == "index"} <= {
        INDEX["index"] + "torch/"
    }
    assert all(r["variant"] == "default" for r in rows if r["evidence"] == "index")
    page_rows = {
        (r["torch_version"], r["variant"], r["platform"]): r["source_line"]
        for r in rows
        if r["evidence"] == "install_page"
    }
    assert page_rows == {k: line for k, line in DOCUMENTED.items() if minor(k[0]) == release}
    assert {r["source_url"] for r in rows if r["evidence"] == "install_page"} <= {PAGE}


def test_every_patch_the_index_listed_is_a_patch_release():
    listed = {
        v for lookup in INDEX["lookups"] if lookup["package"] == "torch" for v in lookup["versions"]
    }
    patches = {v for v in listed if not v.endswith(".0")}
    held = {
        item["fields"]["version"]
        for path in (ROOT / "fixtures").glob("pytorch-*.json")
        for item in json.loads(path.read_text(encoding="utf-8"))
        if item["model"] == "releases.patchrelease"
    }
    assert patches <= held
    assert "2.14.1" in held


def test_2_15_is_out_with_its_day_unknown():
    (release,) = [i["fields"] for i in fixture("2.15") if i["model"] == "releases.release"]
    assert "2.15.0" in {v for lookup in INDEX["lookups"] for v in lookup["versions"]}
    assert release["planned"] is False and release["release_date"] is None
    assert release["is_published"] and not release["announced"]
    assert re.search(r"no upload dates", release["sources_note"])


def test_each_companion_the_install_page_pins_is_paired_or_the_disagreement_recorded():
    paired = {}
    for path in (ROOT / "fixtures").glob("pytorch-*.json"):
        for item in json.loads(path.read_text(encoding="utf-8")):
            if item["model"] == "releases.companion":
                fields = item["fields"]
                paired[(fields["torch_version"], fields["library"])] = fields
    for entry in INSTALL["versions"]:
        for library, version in entry["companions"].items():
            fields = paired[(entry["torch"], library)]
            assert fields["version"] == version or (
                f"pins {library} {version} with torch {entry['torch']}" in fields["disputed"]
            ), (entry["torch"], library)

"""
PyTorch's install page for previous versions, row by row, against the catalog's answers
through the API (issue 41, "tests from the sources' own rows"): every pip command it lists
(tests/answer_keys/previous-versions-install.json, facts only) is a build /api/check/ calls
published, and /api/install/ gives its index and the companions it pins, or, where the page
and the catalog's pairing disagree, the catalog's answer with the page's pin kept beside it.
"""

import json
from pathlib import Path

from releases.models import Companion

KEY = json.loads(
    (Path(__file__).resolve().parent / "answer_keys/previous-versions-install.json").read_text()
)
# The LTS line's own index (whl/lts/1.8/), not a variant's: issue 41's LTS class.
LTS = "1.8.2"
ROWS = [
    (entry["torch"], build)
    for entry in KEY["versions"]
    if entry["torch"] != LTS
    for build in entry["builds"]
    if build["variant"] != "default"
]


def oses(build):
    return ["linux"] if build["linux_only"] else ["linux", "windows"]


def wrong_answers(client, torch, build):
    """What the API answers otherwise than the page's row says, a line each."""
    wrong = []
    for os in oses(build):
        check = client.get("/api/check/", {"torch": torch, "variant": build["variant"], "os": os})
        if check.json()["published"]["verdict"] != "published":
            wrong.append(f"check {os}: {check.json()['published']['verdict']}")
    answer = client.get("/api/install/", {"torch": torch, "variant": build["variant"]}).json()
    if (answer.get("torch"), answer.get("evidence")) != (torch, "install_page"):
        return [*wrong, f"install: {answer}"]
    if answer["index_url"].rstrip("/") != f"https://download.pytorch.org/whl/{build['variant']}":
        wrong.append(f"index {answer['index_url']}")
    if build["line"] not in [source["line"] for source in answer["sources"]]:
        wrong.append(f"sources {answer['sources']} lack line {build['line']}")
    (entry,) = [e for e in KEY["versions"] if e["torch"] == torch]
    for library, version in entry["companions"].items():
        if library not in ("torchvision", "torchaudio"):
            continue
        if f"{library}=={version}" in answer["packages"]:
            continue
        # The catalog pairs another version: the page's must be kept on its pairing, disputed.
        paired = Companion.objects.filter(torch_version=torch, library=library).first()
        if paired is None or f"pins {library} {version} with torch {torch}" not in paired.disputed:
            wrong.append(f"{library} {version} neither pinned nor kept as disputed")
    return wrong


def test_every_build_of_the_page_is_published_and_installs_with_its_pins(client, full_catalog):
    wrong = {
        f"{torch} {build['variant']} (line {build['line']})": problems
        for torch, build in ROWS
        if (problems := wrong_answers(client, torch, build))
    }
    assert wrong == {}
    assert len(ROWS) > 100 and {torch for torch, _ in ROWS} >= {"2.3.1", "1.12.1", "1.7.0"}


def test_releases_filter_by_os_and_accelerator_on_one_wheel(full_catalog, client):
    """Issue 41: "which releases had CUDA 10.2 builds on Windows" has an answer. An OS and an
    accelerator asked together are one published wheel's (install page or index); each alone
    is a documented support row or a wheel."""

    def versions(query):
        body = client.get(f"/api/releases/?{query}&page_size=100").json()
        return {item["version"] for item in body["results"]}

    def minor(torch):
        return ".".join(torch.split(".")[:2])

    windows_cu102 = {
        minor(torch)
        for torch, build in ROWS
        if build["variant"] == "cu102" and "windows" in oses(build)
    }
    assert (
        versions("cuda=10.2&os=windows") == windows_cu102 == {"1.8", "1.9", "1.10", "1.11", "1.12"}
    )
    assert versions("cuda=10.2&os=macos") == set()
    assert versions("rocm=5.1.1&os=linux") == {"1.12"}
    assert versions("rocm=5.1.1&os=windows") == set()

"""
What was published and how to install it, from the committed catalog (issue 40): a release's
wheels and patches in the API, /api/install/ (pip and uv commands with the paired companions),
/api/check/'s verdict on published wheels apart from documented support, the constraints files,
and a bounded number of queries for each whatever the catalog holds.
"""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases.models import Release, Wheel
from tests.factories import ReleaseFactory


def get(client, path, **params):
    return client.get(path, params)


def test_torch_2_5_1_for_cuda_12_4_is_one_pip_and_one_uv_command(client, full_catalog):
    answer = get(client, "/api/install/", torch="2.5.1", variant="cu124").json()

    assert answer["packages"] == ["torch==2.5.1", "torchvision==0.20.1", "torchaudio==2.5.1"]
    assert answer["index_url"] == "https://download.pytorch.org/whl/cu124/"
    assert answer["pip"] == (
        "pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 "
        "--index-url https://download.pytorch.org/whl/cu124/"
    )
    assert answer["uv"] == "uv " + answer["pip"]
    # No cu124 wheel is recorded (the install page read ends at 2.3.1): the table's CUDA 12.4.
    assert answer["evidence"] == "documented_support"
    assert answer["sources"][0]["url"].endswith("RELEASE.md")


def test_a_minor_installs_its_newest_version_from_the_main_index(client, full_catalog):
    answer = get(client, "/api/install/", torch="2.14", python="3.12", os="linux").json()

    assert answer["torch"] == "2.14.1" and answer["variant"] == "default"
    assert answer["pip"] == "pip install torch==2.14.1"  # no companion paired with 2.14.1 yet
    assert answer["evidence"] == "index"
    assert answer["sources"] == [{"url": "https://pypi.org/simple/torch/", "line": None}]


def test_an_install_page_build_names_its_line(client, full_catalog):
    answer = get(client, "/api/install/", torch="2.3.1", variant="rocm6.0").json()

    assert answer["evidence"] == "install_page"
    assert answer["packages"] == ["torch==2.3.1", "torchvision==0.18.1", "torchaudio==2.3.1"]
    assert answer["sources"][0]["line"] == 54
    assert "previous-versions.md" in answer["sources"][0]["url"]


@pytest.mark.parametrize(
    "params, parameter",
    [
        ({"torch": "2.15", "python": "3.10"}, "python"),  # 2.15.0 has no wheel for 3.10
        ({"torch": "2.14", "variant": "cu999"}, "variant"),
        ({"torch": "2.2", "os": "macos", "arch": "x86_64", "python": "3.12"}, "arch"),
        ({"torch": "9.9"}, "torch"),
    ],
)
def test_no_wheel_is_a_400_naming_what_has_none_and_the_nearest(
    client, full_catalog, params, parameter
):
    response = get(client, "/api/install/", **params)

    assert response.status_code == 400
    body = response.json()
    assert (
        list(body) == [parameter, "nearest"]
        and "No wheel" in body[parameter][0]
        or (parameter == "torch" and "no released torch" in body["torch"][0])
    )


def test_the_nearest_builds_are_the_last_release_for_that_python_then_the_nearest_python(
    client, full_catalog
):
    body = get(client, "/api/install/", torch="2.15", python="3.10").json()

    nearest = [(n["torch"], n["python"]) for n in body["nearest"]]
    assert nearest[0] == ("2.14.1", "3.10")  # 2.14 is the last with a wheel for 3.10
    assert ("2.15.0", "3.11") in nearest


@pytest.mark.parametrize(
    "params, parameter",
    [
        ({"variant": "cu124"}, "torch"),
        ({"torch": "2.5.1", "variant": "CU 124"}, "variant"),
        ({"torch": "2.5.1", "os": "plan9"}, "os"),
        ({"torch": "2.5.1", "arch": "sparc"}, "arch"),
        ({"torch": "two"}, "torch"),
        ({"torch": "2.5.1", "python": "3.x"}, "python"),
        ({"torch": "2.5.1", "pyhton": "3.12"}, "pyhton"),
    ],
)
def test_bad_parameters_are_400s_naming_them(client, full_catalog, params, parameter):
    response = get(client, "/api/install/", **params)
    assert response.status_code == 400 and parameter in response.json()


def test_check_tells_a_python_without_a_wheel_from_one_without_documented_support(
    client, full_catalog
):
    # 2.14's table documents Python 3.15, for which no wheel was published.
    documented = get(client, "/api/check/", torch="2.14", python="3.15").json()
    assert documented["checks"][0]["verdict"] in {"supported", "experimental"}
    assert documented["published"]["verdict"] == "not_published"
    # 2.15.0's wheels start at 3.11; its table is not read yet.
    measured = get(client, "/api/check/", torch="2.15", python="3.12").json()
    assert measured["checks"][0]["verdict"] == "unknown"
    assert measured["published"]["verdict"] == "published"
    assert "read from the package index" in measured["published"]["reason"]


def test_check_answers_an_os_and_architecture(client, full_catalog):
    intel_mac = get(client, "/api/check/", torch="2.3", os="macos", arch="x86_64").json()
    assert intel_mac["published"]["verdict"] == "not_published"  # macOS Intel ends at 2.2
    assert intel_mac["published"]["nearest"][0] == {
        "torch": "2.2.2",
        "variant": "default",
        "platform": "macos-x86_64",
        "python": "3.10",
    }
    apple = get(client, "/api/check/", torch="2.3", os="macos", arch="arm64").json()
    assert apple["published"]["verdict"] == "published"
    assert get(client, "/api/check/", torch="2.3").json()["published"] is None


def test_a_release_item_has_its_wheels_patches_and_whether_it_is_overdue(client, full_catalog):
    item = get(client, "/api/releases/2.14/").json()

    assert {"version": "2.14.1", "release_date": None, "yanked": False} == {
        key: item["patches"][-1][key] for key in ("version", "release_date", "yanked")
    }
    assert item["overdue"] is False
    by_version = {entry["version"]: entry for entry in item["wheels"]}
    assert by_version["2.14.1"]["python"] == ["3.10", "3.11", "3.12", "3.13", "3.14", "3.14t"]
    assert by_version["2.14.1"]["platforms"] == [
        "linux-aarch64",
        "linux-x86_64",
        "macos-arm64",
        "windows-amd64",
    ]
    assert by_version["2.14.1"]["variants"] == ["default"]
    assert by_version["2.14.1"]["sources"][0]["evidence"] == "index"
    assert get(client, "/api/releases/2.15/").json()["status"] == "latest"


def test_a_planned_release_past_its_day_is_overdue(client, db):
    ReleaseFactory(version="7.1", planned=True, release_date=dt.date(2020, 1, 1))
    assert get(client, "/api/releases/7.1/").json()["overdue"] is True


def test_a_constraints_file_pins_torch_and_its_companions(client, full_catalog):
    response = client.get("/constraints/2.5.txt")

    assert response["Content-Type"] == "text/plain; charset=utf-8"
    lines = [line for line in response.content.decode().splitlines() if not line.startswith("#")]
    assert lines == ["torch==2.5.1", "torchvision==0.20.1", "torchaudio==2.5.1"]
    assert client.get("/constraints/9.9.txt").status_code == 404
    assert client.get("/constraints/2.5.txt", {"x": "1"}).status_code == 400


def test_a_draft_releases_wheels_show_nowhere(client, full_catalog):
    release = ReleaseFactory(version="7.2", is_published=False)
    Wheel.objects.create(
        release=release,
        torch_version="7.2.0",
        variant="default",
        platform="linux-x86_64",
        python="3.13",
    )
    assert client.get("/api/releases/7.2/").status_code == 404
    assert get(client, "/api/install/", torch="7.2").status_code == 400
    assert client.get("/constraints/7.2.txt").status_code == 404
    check = get(client, "/api/check/", torch="7.2", python="3.13").json()
    assert check["release"] is None and check["published"] is None


def queries(client, path, **params):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path, params)
    assert response.status_code in (200, 400), response.content
    return len(captured)


@pytest.mark.parametrize(
    "path, params, most",
    [
        ("/api/install/", {"torch": "2.5.1", "variant": "cu124"}, 6),
        ("/api/install/", {"torch": "2.15", "python": "3.10"}, 4),
        ("/api/check/", {"torch": "2.14", "python": "3.13", "os": "linux", "variant": "cpu"}, 9),
        ("/constraints/2.5.txt", {}, 4),
        ("/releases/2.3/", {}, 9),
    ],
)
def test_each_answer_costs_a_few_queries_however_many_wheels(
    client, full_catalog, uncached, path, params, most
):
    before = queries(client, path, **params)
    release = Release.objects.get(version="2.14")
    Wheel.objects.bulk_create(
        [
            Wheel(
                release=release,
                torch_version="2.14.0",
                variant=f"cu{n}",
                platform=platform,
                python=python,
            )
            for n in range(100, 140)
            for platform in ("linux-x86_64", "windows-amd64")
            for python in ("3.11", "3.12", "3.13")
        ]
    )
    assert queries(client, path, **params) == before <= most


def test_a_constraints_file_follows_every_rule_of_a_page(live_catalog):
    from tests.conftest import http

    response = http(live_catalog, "/constraints/1.9.txt")
    assert response.status == 200 and response.headers["ETag"]
    assert response.body.decode().splitlines()[2] == "torch==1.9.1"
    again = http(
        live_catalog, "/constraints/1.9.txt", headers={"If-None-Match": response.headers["ETag"]}
    )
    assert again.status == 304
    assert http(live_catalog, "/constraints/1.9.txt", method="POST").status == 405
    assert http(live_catalog, "/constraints/1.9.txt", params={"x": "1"}).status == 400


def test_a_variant_whose_index_was_not_read_is_unknown_not_unpublished(client, full_catalog):
    answer = get(client, "/api/check/", torch="2.5.1", variant="cu124", os="linux").json()

    assert answer["published"]["verdict"] == "unknown"
    assert "its index was not read" in answer["published"]["reason"]
    # A variant recorded for the release, but not for that platform, was not published.
    rocm = get(client, "/api/check/", torch="2.3.1", variant="rocm6.0", os="windows").json()
    assert rocm["published"]["verdict"] == "not_published"


@pytest.mark.parametrize("torch", ["2.5.0rc1", "2.5.0a0", "2.5b1"])
def test_a_pre_release_is_not_answered_as_its_final_release(client, full_catalog, torch):
    answer = get(client, "/api/check/", torch=torch, python="3.12").json()

    assert answer["verdict"] == "unknown" and answer["release"] is None
    assert answer["published"] is None
    assert all("is a pre-release" in item["reason"] for item in answer["checks"])
    assert [item["parameter"] for item in answer["checks"]] == ["torch", "python"]


def test_the_releases_feed_lists_a_release_out_with_no_day(client, full_catalog):
    response = client.get("/feeds/releases/")

    assert response.status_code == 200
    body = response.content.decode()
    entry = body[body.index("PyTorch 2.15: PyTorch 2.15") :].split("</entry>")[0]
    assert "<updated>" in entry and "<published>" not in entry

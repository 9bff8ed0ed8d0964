"""
torchvision's README table, row by row, against the catalog's answers through the API (issue
41, "tests from the sources' own rows"): the Pythons each row gives a torch release are the
Pythons the release's item lists, or the versions they differ by carry the table's reading in
``disputed`` (tests/answer_keys/torchvision-readme.json, facts only).
"""

import json
import re
from pathlib import Path

KEY = json.loads(
    (Path(__file__).resolve().parent / "answer_keys/torchvision-readme.json").read_text()
)
BOUND = re.compile(r"(==|>=|<=)([0-9]+)\.([0-9]+)(?:\.[0-9]+)?")


def pythons(cell):
    """2.7, 3.5, 3.6, 3.7 of "==2.7, >=3.5, <=3.7"."""
    found, low, high = set(), None, None
    for part in cell.split(","):
        operator, major, minor = BOUND.fullmatch(part.strip()).groups()
        if operator == "==":
            found.add(f"{major}.{minor}")
        elif operator == ">=":
            low = (major, int(minor))
        else:
            high = int(minor)
    found |= {f"{low[0]}.{minor}" for minor in range(low[1], high + 1)}
    return found


def release_of(row):
    return "1.0" if row["torch"] == "<=1.0" else row["torch"]


ROWS = [row for row in KEY["rows"] if re.fullmatch(r"[0-9.]+|<=1\.0", row["torch"])]


def test_every_row_of_torchvisions_table_is_the_catalogs_answer_or_disputed(client, full_catalog):
    wrong = {}
    for row in ROWS:
        item = client.get(f"/api/releases/{release_of(row)}/").json()
        listed = {p["version"]: p for p in item["platforms"]["python"] if "t" not in p["version"]}
        expected = pythons(row["python"])
        problems = [f"{version} not listed" for version in sorted(expected - set(listed))]
        problems += [
            f"{version} listed, the table silent, and no dispute says so"
            for version in sorted(set(listed) - expected)
            if "torchvision's README table" not in (listed[version]["disputed"] or "")
        ]
        if problems:
            wrong[f"torch {row['torch']} (line {row['line']})"] = problems
    assert wrong == {}
    assert len(ROWS) == 18


def test_the_pythons_of_1_0_to_1_9_come_from_the_table_with_its_line(client, full_catalog):
    item = client.get("/api/releases/1.8/").json()
    python = {p["version"]: p for p in item["platforms"]["python"]}
    assert sorted(python) == ["3.6", "3.7", "3.8", "3.9"]
    assert python["3.6"]["source"] == {
        "url": f"https://github.com/pytorch/vision/blob/{KEY['commit']}/README.md",
        "line": 39,
    }
    assert "up to 3.8" in python["3.9"]["disputed"]  # the LTS patch's limit
    assert item["python_range"] == {"min": "3.6", "max": "3.9"}
    assert client.get("/api/releases/1.1/").json()["python_range"] == {"min": "2.7", "max": "3.7"}


def test_2_14_pairs_with_the_torchvision_its_documents_name(full_catalog, client):
    """Issue 41: the newest release had no companions; its post and its release notes both
    name torchvision 0.29.0. Each pairing of the key is the API's, sourced to a pinned line."""
    keys = Path(__file__).resolve().parent / "answer_keys"
    key = json.loads((keys / "companions-2.14.json").read_text(encoding="utf-8"))
    companions = client.get("/api/releases/2.14/").json()["companions"]
    for pairing in key["pairings"]:
        found = [c for c in companions if c["library"] == pairing["library"]]
        assert [c["version"] for c in found] == [pairing["version"]]
        first = pairing["sources"][0]
        assert found[0]["source"]["url"] == (
            f"https://github.com/{first['repo']}/blob/{first['commit']}/{first['path']}"
        )
        assert len(pairing["sources"]) == 2  # two documents agree: not held back


def test_every_row_of_torchaudios_own_table_is_the_apis_pairing(full_catalog, client):
    """Issue 41: torchaudio's table (pinned; and a later copy's newer rows) against the API:
    each row's torch version pairs with its torchaudio, a wrong or missing one named."""
    keys = Path(__file__).resolve().parent / "answer_keys"
    key = json.loads((keys / "torchaudio-installation.json").read_text(encoding="utf-8"))
    wrong = []
    for row in [*key["rows"], *key["newer_copy"]["rows"]]:
        parts = row["torch"].split(".")
        torch = ".".join(parts + ["0"] * (3 - len(parts)))
        minor = ".".join(parts[:2])
        companions = client.get(f"/api/releases/{minor}/").json()["companions"]
        paired = {
            c["torch_version"]: c["version"] for c in companions if c["library"] == "torchaudio"
        }
        if paired.get(torch) != row["torchaudio"]:
            wrong.append(f"line {row['line']}: torch {torch} -> {paired.get(torch)}")
    assert wrong == []
    assert len(key["rows"]) == 27 and key["commit"].startswith("0e01d387")

"""
Measure the release-notes parser (releases.importing.notes) against the answer keys of real
release notes: which entries it finds, how many pull requests, with the right kind and area.

    python -m releases.importing.notes_accuracy tests/answer_keys --notes DIR

DIR holds the release notes as published, one ``<version>.md`` per key
(``release-notes-<version>.json``): each key names its source (for 2.8 on, a file of
meta-pytorch/torch-release-notes pinned to a commit; before, the GitHub release page), and the
notes stay where they are published. A key whose file DIR lacks is listed as not scored. An
entry is found when the parser reads one in the same section within two lines of the key's.
"""

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from releases.importing.notes import DEPRECATIONS_SECTION, parse_release_notes


@dataclass
class Score:
    keyed: int = 0
    found: int = 0
    extra: int = 0
    prs: int = 0  # cited in the key
    prs_found: int = 0  # cited in the key and read
    prs_read: int = 0  # read in the entries found
    kinds: int = 0  # entries found with the key's kind
    areas: int = 0  # entries found with the key's area

    def add(self, other):
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def is_deprecations(section):
    return bool(DEPRECATIONS_SECTION.fullmatch(section))


def score(key, text):
    """The Score of the parser on ``text`` against ``key`` (an answer key's dict)."""
    entries = list(parse_release_notes(text).entries)
    result = Score(keyed=len(key["entries"]))
    for wanted in key["entries"]:
        result.prs += len(wanted["prs"])
        near = [
            e
            for e in entries
            if abs(e.line - wanted["line"]) <= 2
            and is_deprecations(e.section) == is_deprecations(wanted["section"])
        ]
        if not near:
            continue
        found = min(near, key=lambda e: abs(e.line - wanted["line"]))
        entries.remove(found)
        result.found += 1
        result.prs_found += len(set(found.prs) & set(wanted["prs"]))
        result.prs_read += len(found.prs)
        result.kinds += found.kind == wanted["kind"]
        result.areas += found.area == wanted["area"]
    result.extra = len(entries)
    return result


def share(part, whole):
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def row(label, s):
    return (
        f"| {label} | {s.keyed} | {s.found} | {s.keyed - s.found} | {s.extra} | "
        f"{share(s.prs_found, s.prs)} | {share(s.prs_found, s.prs_read)} | "
        f"{share(s.kinds, s.found)} | {share(s.areas, s.found)} |"
    )


def report(keys_folder, notes_folder):
    """The lines of the report: a Markdown table, one row per scored release, then a total."""
    lines = [
        "| release | keyed | found | missed | extra | PR recall | PR precision | kind | area |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total, skipped = Score(), []
    keys = sorted(
        Path(keys_folder).glob("release-notes-*.json"),
        key=lambda p: [int(n) for n in p.stem.removeprefix("release-notes-").split(".")],
    )
    for path in keys:
        key = json.loads(path.read_text(encoding="utf-8"))
        notes = Path(notes_folder) / f"{key['release']}.md"
        if not notes.exists():
            skipped.append(key["release"])
            continue
        result = score(key, notes.read_text(encoding="utf-8"))
        total.add(result)
        lines.append(row(key["release"], result))
    lines.append(row("all", total))
    if skipped:
        lines.append(f"Not scored (no <version>.md in {notes_folder}): {', '.join(skipped)}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("keys", help="The folder of release-notes-<version>.json keys.")
    parser.add_argument("--notes", required=True, help="The folder of <version>.md notes.")
    options = parser.parse_args(argv)
    if not Path(options.notes).is_dir():
        parser.error(f"--notes: no such folder: {options.notes}")
    print("\n".join(report(options.keys, options.notes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""
Measure the parser against hand-made answer keys: how many announced features it finds, with
the right stability, how many of their link URLs, and how many features it invents.

    python -m releases.importing.accuracy tests/samples

Each ``NAME.md`` post is scored against ``NAME.expected.json``:
``{"version": "2.20", "features": [{"title": ..., "stability": "beta" | null,
"links": [url, ...], "missing": [label, ...]}]}``.
"""

import json
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path

from .parse import parse_file


def title_key(title):
    return re.sub(r"[^a-z0-9]+", "", title.lower())


@dataclass
class Score:
    features: int = 0  # announced, in the answer key
    found: int = 0  # of those, extracted
    right_stability: int = 0  # of those, with the right stability
    false_features: int = 0  # extracted, but not announced
    links: int = 0  # link URLs in the answer key
    links_found: int = 0
    missing: int = 0  # missing-link placeholders in the answer key
    missing_found: int = 0

    def __add__(self, other):
        return Score(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @staticmethod
    def ratio(part, whole):
        return part / whole if whole else 1.0

    @property
    def feature_recall(self):
        return self.ratio(self.found, self.features)

    @property
    def stability_accuracy(self):
        """Announced features found *and* given the right stability."""
        return self.ratio(self.right_stability, self.features)

    @property
    def link_recall(self):
        return self.ratio(self.links_found, self.links)


def score(post_path, expected_path):
    expected = json.loads(Path(expected_path).read_text(encoding="utf-8"))
    parsed = parse_file(post_path)
    extracted = {title_key(feature.title): feature for feature in parsed.features}
    result = Score()
    for item in expected["features"]:
        result.features += 1
        result.links += len(item.get("links", []))
        result.missing += len(item.get("missing", []))
        feature = extracted.pop(title_key(item["title"]), None)
        if feature is None:
            continue
        result.found += 1
        result.right_stability += feature.stability == item["stability"]
        urls = {link.url for link in feature.links if link.url}
        result.links_found += len(urls & set(item.get("links", [])))
        labels = {link.label.lower() for link in feature.links if not link.url}
        result.missing_found += len(labels & {label.lower() for label in item.get("missing", [])})
    result.false_features = len(extracted)
    return result, sorted(feature.title for feature in extracted.values())


def report(folder):
    lines, total = [], Score()
    header = (
        f"{'post':28} {'features':>9} {'stability':>9} {'links':>9} {'missing':>8} {'false':>5}"
    )
    lines.append(header)
    for expected_path in sorted(Path(folder).glob("*.expected.json")):
        post_path = expected_path.with_name(expected_path.name.replace(".expected.json", ".md"))
        result, invented = score(post_path, expected_path)
        total += result
        lines.append(
            f"{post_path.name:28} {result.found:>4}/{result.features:<4} "
            f"{result.right_stability:>4}/{result.features:<4} "
            f"{result.links_found:>4}/{result.links:<4} "
            f"{result.missing_found:>3}/{result.missing:<4} "
            f"{result.false_features:>5}"
        )
        lines += [f"    invented: {title}" for title in invented]
    lines.append(
        f"total: features found {total.feature_recall:.1%}, right stability "
        f"{total.stability_accuracy:.1%}, link URLs found {total.link_recall:.1%}, "
        f"missing links found {total.missing_found}/{total.missing}, "
        f"false features {total.false_features}"
    )
    return total, lines


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    _, lines = report(argv[0])
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

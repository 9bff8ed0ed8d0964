"""
Measure the parser against hand-made answer keys: which announced features it finds (recall),
how many it invents (precision), with the right stability, how many of their link URLs, and
which stage claims in the prose it finds.

    python -m releases.importing.accuracy tests/samples
    python -m releases.importing.accuracy tests/answer_keys --posts PATH/TO/_posts

In the first form each post of the folder (``NAME.md``, a Jekyll post or a translation of one,
or ``NAME.html``, an article of the blog as served) is scored against ``NAME.expected.json``
beside it. In the second, each key names its post (``"post": "2024-01-30-pytorch2-2.md"``),
read from a checkout of the blog: the keys hold facts only, the posts stay where they are published.

A key: ``{"version": "2.20", "features": [{"title": ..., "stability": "beta" | null,
"links": [url, ...], "missing": [label, ...]}], "claims": [{"subject": ..., "stability": ...}]}``.
A feature may also state its ``stage_label`` (the stage as the post wrote it, "" for none) and
its ``kind`` ("feature" or "deprecation"); each is scored where the key states it.
"""

import argparse
import json
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path

from releases.importing.parse import PostError, parse_file
from releases.names import names_match


def title_key(title):
    return re.sub(r"[^a-z0-9]+", "", title.lower())


@dataclass
class Score:
    features: int = 0  # announced, in the answer key
    extracted: int = 0  # what the parser found, right or wrong
    found: int = 0  # announced and extracted
    right_stability: int = 0  # of those, with the right stability
    links: int = 0  # link URLs in the answer key
    links_found: int = 0
    missing: int = 0  # missing-link placeholders in the answer key
    missing_found: int = 0
    claims: int = 0  # stage claims in the answer key
    claims_found: int = 0
    claims_extracted: int = 0
    labels: int = 0  # announced features found whose key states their stage label
    right_label: int = 0
    kinds: int = 0  # announced features found whose key states their kind
    right_kind: int = 0

    def __add__(self, other):
        return Score(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    @staticmethod
    def ratio(part, whole):
        return part / whole if whole else 1.0

    @property
    def feature_recall(self):
        return self.ratio(self.found, self.features)

    @property
    def feature_precision(self):
        return self.ratio(self.found, self.extracted)

    @property
    def feature_f1(self):
        recall, precision = self.feature_recall, self.feature_precision
        return 2 * recall * precision / (recall + precision) if recall + precision else 0.0

    @property
    def stability_accuracy(self):
        """Of the announced features found, those given the right stability."""
        return self.ratio(self.right_stability, self.found)

    @property
    def link_recall(self):
        return self.ratio(self.links_found, self.links)

    @property
    def label_accuracy(self):
        return self.ratio(self.right_label, self.labels)

    @property
    def kind_accuracy(self):
        return self.ratio(self.right_kind, self.kinds)


def score_post(post_path, expected, misses=None):
    """
    (Score, invented titles, error) of one post against its key. Given a list as ``misses``,
    adds to it what the key holds and the parser did not find: features, link URLs, claims.
    """
    misses = [] if misses is None else misses
    try:
        parsed = parse_file(post_path)
    except PostError as error:
        result = Score(features=len(expected["features"]))
        return result, [], f"{error.message} (line {error.line})"
    extracted = {}
    for feature in parsed.features:
        extracted.setdefault(title_key(feature.title), []).append(feature)
    result = Score(extracted=len(parsed.features))
    for item in expected["features"]:
        result.features += 1
        result.links += len(item.get("links", []))
        result.missing += len(item.get("missing", []))
        same = extracted.get(title_key(item["title"]))
        if not same:
            misses.append(f"missed: {item['title']} ({item['stability']})")
            continue
        feature = same.pop(0)
        result.found += 1
        result.right_stability += (feature.stability or None) == item["stability"]
        if (feature.stability or None) != item["stability"]:
            misses.append(
                f"stage: {item['title']} is {item['stability']}, read as {feature.stability}"
            )
        if "stage_label" in item:
            result.labels += 1
            result.right_label += feature.stage_label == (item["stage_label"] or "")
            if feature.stage_label != (item["stage_label"] or ""):
                misses.append(
                    f"label: {item['title']} is '{item['stage_label']}', read as "
                    f"'{feature.stage_label}'"
                )
        if "kind" in item:
            result.kinds += 1
            result.right_kind += feature.kind == item["kind"]
            if feature.kind != item["kind"]:
                misses.append(f"kind: {item['title']} is {item['kind']}, read as {feature.kind}")
        urls = {link.url for link in feature.links if link.url}
        result.links_found += len(urls & set(item.get("links", [])))
        misses += [
            f"link: {item['title']}: {url}" for url in item.get("links", []) if url not in urls
        ]
        labels = {link.label.lower() for link in feature.links if not link.url}
        result.missing_found += len(labels & {label.lower() for label in item.get("missing", [])})
    invented = sorted(feature.title for same in extracted.values() for feature in same)
    expected_claims = expected.get("claims", [])
    result.claims = len(expected_claims)
    result.claims_extracted = len(parsed.claims)
    unmatched = list(parsed.claims)
    for item in expected_claims:
        match = next(
            (
                claim
                for claim in unmatched
                if claim.stability == item["stability"]
                and names_match(item["subject"], claim.subject) >= 0.5
            ),
            None,
        )
        if match is not None:
            unmatched.remove(match)
            result.claims_found += 1
        else:
            misses.append(f"claim: {item['subject']} ({item['stability']})")
    return result, invented, None


def pairs(folder, posts):
    """(name, post path, key) for each answer key in ``folder``."""
    folder = Path(folder)
    if posts is None:
        for key_path in sorted(folder.glob("*.expected.json")):
            stem = key_path.name.replace(".expected.json", "")
            post_path = next(
                (
                    path
                    for path in (folder / f"{stem}.md", folder / f"{stem}.html")
                    if path.exists()
                ),
                folder / f"{stem}.md",
            )
            yield post_path.name, post_path, json.loads(key_path.read_text(encoding="utf-8"))
    else:
        for key_path in sorted(folder.glob("*.json")):
            key = json.loads(key_path.read_text(encoding="utf-8"))
            if "post" in key:  # the keys of posts; tables and release notes have their own tests
                yield key["post"], Path(posts) / key["post"], key


def report(folder, posts=None, details=False):
    header = (
        f"{'post':44} {'features':>9} {'prec':>5} {'F1':>5} {'stability':>9} {'links':>9} "
        f"{'missing':>7} {'claims':>7} {'label':>7} {'kind':>7}"
    )
    lines, total = [header], Score()
    for name, post_path, key in pairs(folder, posts):
        misses = []
        result, invented, error = score_post(post_path, key, misses)
        total += result
        lines.append(
            f"{name[:44]:44} {result.found:>4}/{result.features:<4} "
            f"{result.feature_precision:>5.2f} {result.feature_f1:>5.2f} "
            f"{result.right_stability:>4}/{result.found:<4} "
            f"{result.links_found:>4}/{result.links:<4} "
            f"{result.missing_found:>3}/{result.missing:<3} "
            f"{result.claims_found:>3}/{result.claims:<3} "
            f"{result.right_label:>3}/{result.labels:<3} "
            f"{result.right_kind:>3}/{result.kinds:<3}"
        )
        if error:
            lines.append(f"    not imported: {error}")
        lines += [f"    invented: {title}" for title in invented]
        if details:
            lines += [f"    {miss}" for miss in misses]
    lines.append(
        f"total: features F1 {total.feature_f1:.3f} (recall {total.feature_recall:.3f}, "
        f"precision {total.feature_precision:.3f}), stability {total.stability_accuracy:.3f}, "
        f"link URLs {total.link_recall:.3f}, missing links {total.missing_found}/"
        f"{total.missing}, claims {total.claims_found}/{total.claims} "
        f"({total.claims_extracted} found in all), stage labels {total.right_label}/"
        f"{total.labels}, kinds {total.right_kind}/{total.kinds}"
    )
    return total, lines


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m releases.importing.accuracy",
        description="Score the post parser against answer keys.",
    )
    parser.add_argument("keys", help="a folder of sample posts with keys, or of answer keys")
    parser.add_argument("--posts", help="the folder the keys' posts are in (the blog's _posts)")
    parser.add_argument(
        "--details",
        action="store_true",
        help="also list what each key holds that the parser missed: features, stages, "
        "link URLs and claims",
    )
    args = parser.parse_args(argv)
    if args.posts is not None and not Path(args.posts).is_dir():
        parser.error(f"--posts {args.posts}: not a folder")
    _, lines = report(args.keys, args.posts, details=args.details)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""
A large synthetic release post, in the shapes real posts use (Jekyll front matter, areas as
headings, features as headings tagged [Stable], (Beta) or [Prototype], links as bullets or
inline), for the benchmark's "reading while an import writes".

    python -m bench.post PATH --version 90.1 --features 2000
"""

import argparse
import datetime as dt
from pathlib import Path

STAGES = ["[Stable]", "(Beta)", "[Prototype]", "[Beta]"]


def text(version, features, areas=12):
    lines = [
        "---",
        "layout: blog_detail",
        f"title: 'PyTorch {version} is out, with {features} synthetic features'",
        "author: Benchmark Team",
        "---",
        "",
        f"PyTorch {version} is a made-up release that the benchmark imports while it reads.",
        "",
    ]
    per_area = max(1, features // areas)
    for number in range(features):
        if number % per_area == 0:
            lines += [f"# Synthetic area {number // per_area % areas}", ""]
        stage = STAGES[number % len(STAGES)]
        lines += [
            f"## {stage} Imported capability {number}",
            "",
            f"Capability {number} does one imported thing a little better than before.",
            "",
        ]
        if number % 3 == 0:
            lines += [
                f"* Documentation | [Link](https://example.org/docs/{version}/{number}.html)",
                f"* RFC | [Link](https://example.org/rfcs/{number})",
                "",
            ]
        elif number % 3 == 1:
            lines += [
                f"See the [tutorial](https://example.org/tutorials/{number}.html).",
                "",
            ]
        else:
            lines += ["Usage examples | Link **Missing Link**", ""]  # promised, never filled in
    return "\n".join(lines) + "\n"


def write(path, version, features):
    Path(path).write_text(text(version, features), encoding="utf-8")
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("path")
    parser.add_argument("--version", default=f"90.{dt.date.today().toordinal()}")
    parser.add_argument("--features", type=int, default=2000)
    args = parser.parse_args(argv)
    write(args.path, args.version, args.features)


if __name__ == "__main__":
    main()

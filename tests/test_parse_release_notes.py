"""
The release-notes reader (issue 33): releases.importing.notes on samples in our own words, one
per shape that the "Backwards Incompatible Changes" and "Deprecations" sections of PyTorch's
release notes take in 2.8-2.14 (the APIs, areas and pull-request numbers are made up); and the
answer keys of the real notes (tests/answer_keys/release-notes-<version>.json), checked for
form here, since a later test compares the catalog's curated notes with them.
"""

import json
import re
from pathlib import Path

import pytest

from releases.importing.notes import NO_PR, NO_SECTION, parse_release_notes

KEYS = Path(__file__).parent / "answer_keys"
# The notes of meta-pytorch/torch-release-notes, pinned files (2.8 on); and the GitHub release
# pages of earlier releases, read from stored copies of their text (2.5 to 2.7).
FILE_KEY_VERSIONS = ["2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.14"]
PAGE_KEY_VERSIONS = ["2.5", "2.6", "2.7"]
KEY_VERSIONS = PAGE_KEY_VERSIONS + FILE_KEY_VERSIONS
BC = "Backwards Incompatible Changes"
DEPRECATIONS = "Deprecations"
KINDS = {"bc-breaking", "deprecation", "removal"}


def md(text):
    """A sample with its links spelled out (written short so that lines stay readable)."""
    return text.replace("PULL/", "https://github.com/pytorch/pytorch/pull/").replace(
        "ISSUE/", "https://github.com/pytorch/pytorch/issues/"
    )


# 2.8's shape: H3 entries under H2 areas, full links, code before/after, an H3 group title whose
# bullets carry the pull requests; Deprecations without areas; an entry that cites nothing.
H3_UNDER_H2 = md(
    """\
# Widgets 9.1 Release Notes

Some words before the notes.

# Tracked Regressions
### Frobbing hangs on big inputs ([#900100](ISSUE/900100))
The hang is being looked at.

# Backwards Incompatible Changes

## Widget Core
### Dropped the `torch.widgets.legacy_frob` helper ([#900001](PULL/900001), [#900002](ISSUE/900002))
Call `torch.widgets.frob` on the input.

In 9.0
```
# this comment is not a heading
torch.widgets.legacy_frob(x)
```

In 9.1
```python
## nor is this one
torch.widgets.frob(x)  # see #900098
```

### `torch.widgets.spin` now raises `ValueError` for negative speeds ([#900003](PULL/900003))
Version 9.0:
- a negative speed spun backwards
- `torch.widgets.spin_reverse` did the same

## Widget Compiler
### Some widget compiler options were renamed
- `widgets.config.fast_path` no longer does anything ([#900004](PULL/900004)).

- `widgets.config.old_cache` is now `widgets.config.cache_dir` ([#900005](PULL/900005)).
Please set the new name.

# Deprecations
### Abacus platform builds end; they will be removed in 9.3
(to be written)

### `torch.widgets.quantize` is on its way out (removal in 9.4) ([#900006](PULL/900006))
Next steps:
- For eager code, call `widgetao.quantize_`.

# New Features
### Something new ([#900007](PULL/900007))
"""
)

# 2.9's shape: H2 entries with short citations, no areas; one cites its PR only in the body
# and has an H3 of its own; a bare number in prose.
H2_ENTRIES = md(
    """\
# Backwards Incompatible Changes

## Python 3.12 is now the oldest supported version (#900010)

Older interpreters no longer install.

## Gadgets that share memory with their inputs are undefined

Outputs of `torch.gadgets.op` may alias. After [#900011](PULL/900011), they may break.

### Background

```bash
# a shell comment, not a heading
## nor this one
gadgetctl run
```

## Remove `torch.gadgets.old_api` (#900012, #900013)

Code calling `torch.gadgets.old_api` should use `torch.gadgets.new_api` instead.

## Drop the `/fast-math` build flag (#900014)

It may misbehave with some compilers, see #900099

# Deprecations
## `torch.gadgets.Loader` deprecates `gadget_device` (#900015)

Nothing else to say.

## `torch.gadgets.train_export` is deprecated in favor of `torch.gadgets.export` (#900016)

# New Features
"""
)

# 2.10's shape: top-level bullets under H2 areas, a bare label bullet, explanation bullets.
BULLETS_FLAT = md(
    """\
# Tracked Regressions
## `WidgetTest::test_spin` fails in `widgetlib`

Tracked in #900120.

# Backwards Incompatible Changes
## Loader Frontend
- Removed `source` from `torch.loaders.Sampler` ([#900020](PULL/900020)). Do not read it.

## Export
- `torch.gadgets.export` defaults to `strict=False` ([#900021](PULL/900021))
- Tracing uses `trace=True` from now on; `strict=True` brings 9.0 back.

# Deprecations
## Distributed
- WidgetMesh
- Slicing a merged dimension of a mesh now warns ([#900022](PULL/900022))

We changed this because implicit state changes surprise people.

Version 9.0
```python
grid["x_y"]  # silent
```

## JIT
- `torch.widgets.script` may not work on new interpreters ([#900023](PULL/900023)).
Widget scripts are being replaced by `torch.widgets.compile`.

## Export
- `torch.gadgets.export` no longer wants an `axes` option ([#900024](PULL/900024))
- Pass the `shapes` argument instead.

# New Features
"""
)

# 2.11-2.14's shape: bullets with indented bodies and fences, a bullet right after a closing
# fence, a parent bullet whose nested bullets carry the PRs; 'New features' in lower case.
INDENTED = md(
    """\
# Backwards Incompatible Changes

## Build Frontend

- `FindWidget.cmake` now fails fast on a broken toolchain ([#900030](PULL/900030))

  A setup that only worked by luck now errors.

  Version 9.0:
  ```bash
  # old toolchain
  WIDGET_HOME=/opt/w9 make
  ```

  Version 9.1:
  ~~~bash
  # new toolchain
  - not a bullet
  WIDGET_HOME=/opt/w10 make
  ~~~
- Deleted the `WIDGET_LEGACY` build option ([#900031](PULL/900031))

# Deprecations

## Linear Gadgets

- Some gadget solvers moved off the Abacus backend:
  - `torch.gadgets.solve` now uses Slide ([#900032](PULL/900032))
  - `torch.gadgets.lstsq` now uses Slide ([#900033](PULL/900033))

  Callers need no change.

## Fully Sharded Gadgets (FSG)

- FSG hooks do not compile ([#900034](PULL/900034), [#900035](PULL/900035)). See ISSUE/900036.
- Old hook names will be removed in a future release; migrate to `torch.fsg.hooks` (#900037)

# New features
## Something (#900038)
"""
)

# 2.13's shape: bullets straight under the H1, hard-wrapped bodies, text after a citation.
UNDER_H1 = md(
    """\
# Highlights
- Not a change at all ([#900040](PULL/900040))

# Backwards Incompatible Changes

- Stop shipping `cp399x` wheels ([#900041](PULL/900041))

  The interpreter was retired upstream, so
  no builds remain.

- Remove the Gizmo build ([#900042](PULL/900042))

- `gadget::fuse` returns a copy. As in [#900043](PULL/900043), read it ([#900044](PULL/900044))

# Deprecations

- `qwidget8` tensors now warn on creation; [#900045](ISSUE/900045) explains ([#900046](PULL/900046))

# New Features
"""
)


def rows(notes):
    return [(e.line, e.kind, e.area, e.prs) for e in notes.entries]


def by_line(notes):
    return {e.line: e for e in notes.entries}


def test_h3_entries_under_h2_areas():
    notes = parse_release_notes(H3_UNDER_H2)
    assert rows(notes) == [
        (12, "removal", "Widget Core", [900001]),
        (27, "bc-breaking", "Widget Core", [900003]),
        (34, "bc-breaking", "Widget Compiler", [900004]),
        (36, "bc-breaking", "Widget Compiler", [900005]),
        (40, "deprecation", "", []),
        (43, "deprecation", "", [900006]),
    ]
    entries = by_line(notes)
    assert entries[12].section == BC and entries[43].section == DEPRECATIONS
    assert entries[12].title == "Dropped the torch.widgets.legacy_frob helper"
    assert entries[12].apis == ["torch.widgets.legacy_frob", "torch.widgets.frob"]
    assert entries[27].apis == ["torch.widgets.spin", "ValueError", "torch.widgets.spin_reverse"]
    assert entries[43].apis == ["torch.widgets.quantize", "widgetao.quantize_"]


def test_a_full_link_to_an_issue_is_an_issue_not_a_pull_request():
    entry = by_line(parse_release_notes(H3_UNDER_H2))[12]
    assert entry.prs == [900001]
    assert entry.issues == [900002]


def test_tracked_regressions_and_new_features_are_not_read():
    notes = parse_release_notes(H3_UNDER_H2)
    cited = {n for e in notes.entries for n in e.prs + e.issues}
    assert not cited & {900100, 900007}
    notes = parse_release_notes(BULLETS_FLAT)
    assert notes.entries[0].line == 8
    assert not any("900120" in message for _, message in notes.problems)


def test_code_blocks_are_skipped_hash_lines_and_all():
    # "# ..." and "## ..." inside fences start no section, area or entry; a number in code is
    # no citation.
    notes = parse_release_notes(H3_UNDER_H2)
    assert [e.line for e in notes.entries if e.area == "Widget Core"] == [12, 27]
    assert not any("900098" in message for _, message in notes.problems)
    notes = parse_release_notes(H2_ENTRIES)
    assert [e.line for e in notes.entries if e.section == BC] == [3, 7, 19, 23]


def test_a_heading_without_pull_request_whose_bullets_carry_them_is_a_group():
    # Issue 41: each change with its own pull request is its own entry, under the group's name.
    entries = by_line(parse_release_notes(H3_UNDER_H2))
    assert 33 not in entries
    assert [(entries[n].prs, entries[n].group) for n in (34, 36)] == [
        ([900004], "Some widget compiler options were renamed"),
        ([900005], "Some widget compiler options were renamed"),
    ]


def test_bullets_inside_a_heading_entry_are_its_body():
    entries = by_line(parse_release_notes(H3_UNDER_H2))
    assert not {29, 30, 45} & set(entries)  # "Version 9.0:" bullets, the migration bullet


def test_an_entry_without_pull_request_is_an_entry_and_a_problem():
    notes = parse_release_notes(H3_UNDER_H2)
    entry = by_line(notes)[40]
    assert entry.prs == [] and entry.kind == "deprecation"
    assert entry.removed_in == "9.3"
    assert notes.problems == [(40, NO_PR)]


def test_h2_entries_with_short_citations_and_no_areas():
    notes = parse_release_notes(H2_ENTRIES)
    assert rows(notes) == [
        (3, "bc-breaking", "", [900010]),
        (7, "bc-breaking", "", [900011]),
        (19, "removal", "", [900012, 900013]),
        (23, "removal", "", [900014]),
        (28, "deprecation", "", [900015]),
        (32, "deprecation", "", [900016]),
    ]
    entries = by_line(notes)
    assert entries[3].title == "Python 3.12 is now the oldest supported version"
    assert entries[7].apis == ["torch.gadgets.op"]  # the first paragraph, not "More details"
    assert entries[19].apis == ["torch.gadgets.old_api", "torch.gadgets.new_api"]
    assert entries[28].apis == ["torch.gadgets.Loader", "gadget_device"]


def test_a_bare_number_in_prose_is_not_a_pull_request():
    notes = parse_release_notes(H2_ENTRIES)
    assert by_line(notes)[23].prs == [900014]
    assert notes.problems == [
        (25, "#900099 written without a link in prose: not counted as a pull request")
    ]


def test_top_level_bullets_under_h2_areas():
    notes = parse_release_notes(BULLETS_FLAT)
    assert rows(notes) == [
        (8, "removal", "Loader Frontend", [900020]),
        (11, "bc-breaking", "Export", [900021]),
        (17, "deprecation", "Distributed", [900022]),
        (27, "deprecation", "JIT", [900023]),
        (31, "deprecation", "Export", [900024]),
    ]
    entries = by_line(notes)
    # Text after the citation stays in the title; the citation goes.
    assert entries[8].title == "Removed source from torch.loaders.Sampler. Do not read it."
    assert entries[8].apis == ["source", "torch.loaders.Sampler"]


def test_label_and_explanation_bullets_without_pull_request_are_not_entries():
    notes = parse_release_notes(BULLETS_FLAT)
    entries = by_line(notes)
    assert not {12, 16, 32} & set(entries)
    # An explanation joins the entry above: it is that entry's first paragraph.
    assert entries[11].apis == ["torch.gadgets.export", "strict=False", "trace=True", "strict=True"]
    assert entries[31].replacement == "shapes"
    assert notes.problems == [
        (12, "bullet without a pull request read as part of the entry on line 11"),
        (16, "bullet without a pull request read as a label, not an entry"),
        (32, "bullet without a pull request read as part of the entry on line 31"),
    ]


def test_an_unindented_continuation_line_belongs_to_its_bullet():
    entry = by_line(parse_release_notes(BULLETS_FLAT))[27]
    assert entry.apis == ["torch.widgets.script", "torch.widgets.compile"]
    assert entry.replacement == "torch.widgets.compile"


def test_indented_bodies_and_fences():
    notes = parse_release_notes(INDENTED)
    assert rows(notes) == [
        (5, "bc-breaking", "Build Frontend", [900030]),
        (21, "removal", "Build Frontend", [900031]),  # right after a closing ~~~ fence
        (27, "deprecation", "Linear Gadgets", [900032, 900033]),
        (35, "deprecation", "Fully Sharded Gadgets (FSG)", [900034, 900035]),
        (36, "deprecation", "Fully Sharded Gadgets (FSG)", [900037]),
    ]
    assert by_line(notes)[5].apis == ["FindWidget.cmake"]
    assert notes.problems == []


def test_a_parent_bullet_with_nested_pull_requests_is_one_entry():
    entry = by_line(parse_release_notes(INDENTED))[27]
    assert entry.title == "Some gadget solvers moved off the Abacus backend:"
    assert entry.prs == [900032, 900033]
    assert entry.apis == ["torch.gadgets.solve", "torch.gadgets.lstsq"]


def test_a_mid_line_citation_with_prose_after_it():
    entries = by_line(parse_release_notes(INDENTED))
    assert entries[35].prs == [900034, 900035]
    assert entries[35].issues == [900036]  # a bare issue URL is an issue
    assert entries[36].replacement == "torch.fsg.hooks"
    assert entries[36].removed_in == ""  # "in a future release"


def test_a_lower_case_heading_ends_the_section():
    notes = parse_release_notes(INDENTED)
    assert notes.entries[-1].line == 36
    assert all(900038 not in e.prs for e in notes.entries)


def test_bullets_directly_under_the_section_heading():
    notes = parse_release_notes(UNDER_H1)
    assert rows(notes) == [
        (6, "bc-breaking", "", [900041]),
        (11, "removal", "", [900042]),
        (13, "bc-breaking", "", [900044, 900043]),  # its own first (issue 41)
        (17, "deprecation", "", [900046]),
    ]
    entries = by_line(notes)
    assert entries[6].apis == ["cp399x"]
    assert entries[13].apis == ["gadget::fuse"]
    assert entries[17].issues == [900045]
    assert entries[17].title == "qwidget8 tensors now warn on creation; #900045 explains"


@pytest.mark.parametrize(
    "title, kind",
    [
        ("Remove `torch.widgets.a` (#900050)", "removal"),
        ("`torch.widgets.a` was removed (#900050)", "removal"),
        ("Removes the Gizmo backend (#900050)", "removal"),
        ("Removing old flags (#900050)", "removal"),
        ("Drop the Abacus platform (#900050)", "removal"),
        ("Dropped the Abacus platform (#900050)", "removal"),
        ("Wheels drop Python 3.9 (#900050)", "removal"),
        ("Deleted `widgets.config.x` (#900050)", "removal"),
        ("DELETE is now a reserved word (#900050)", "removal"),
        # The noun too (2.5's notes: "... support and removal from binary").
        ("Removal of the Gizmo backend (#900050)", "removal"),
        ("Dropdown widgets render differently (#900050)", "bc-breaking"),
        ("`torch.widgets.a` now raises `ValueError` (#900050)", "bc-breaking"),
    ],
)
def test_removal_or_bc_breaking_is_read_from_the_first_line(title, kind):
    text = f"# Backwards Incompatible Changes\n## {title}\n\nThe old code was removed.\n"
    assert [e.kind for e in parse_release_notes(text).entries] == [kind]


@pytest.mark.parametrize(
    "body, replacement",
    [
        ("Please use `torch.widgets.b` instead.", "torch.widgets.b"),
        ("Use `torch.widgets.b` instead of `torch.widgets.a`.", "torch.widgets.b"),
        ("It was replaced by `torch.widgets.c`.", "torch.widgets.c"),
        ("It is gone in favor of `torch.widgets.d`.", "torch.widgets.d"),
        ("Users should migrate to `torch.widgets.e`.", "torch.widgets.e"),
        ("Users should migrate to the new API in `torch.widgets.f`.", "torch.widgets.f"),
        ("It was replaced by `torch.widgets.g` or `torch.widgets.h`.", ""),  # two choices
        ("It now raises `ValueError` instead of `RuntimeError`.", ""),
        ("Nothing replaces it.", ""),
    ],
)
def test_replacement(body, replacement):
    text = f"# Deprecations\n- `torch.widgets.a` is deprecated (#900060)\n\n  {body}\n"
    assert parse_release_notes(text).entries[0].replacement == replacement


@pytest.mark.parametrize(
    "body, removed_in",
    [
        ("It will be removed in 9.3.", "9.3"),
        ("It was removed in PyTorch 9.2.0 already.", "9.2.0"),
        ("It is slated for removal in 10.1.", "10.1"),
        ("It will be\n  removed in 9.5, after a warning.", "9.5"),  # a hard-wrapped line
        ("It will be removed in a future release.", ""),
        ("The same flag was removed in Gizmo 0.20.", ""),  # another project's version
    ],
)
def test_removed_in(body, removed_in):
    text = f"# Deprecations\n- `torch.widgets.a` is deprecated (#900061)\n\n  {body}\n"
    assert parse_release_notes(text).entries[0].removed_in == removed_in


def test_code_spans_that_name_no_api_are_left_out():
    text = (
        "# Backwards Incompatible Changes\n"
        '- `torch.widgets.load` now defaults `mode` to `"safe"` instead of `None` (#900070)\n'
        "  It raises `ValueError: bad mode` or `TypeError` and `pip install widgets` fails;\n"
        "  `~/.widgets` holds `*` and `torch.widgets.load` again.\n"
    )
    assert parse_release_notes(text).entries[0].apis == ["torch.widgets.load", "mode", "TypeError"]


def test_short_citations_in_a_paragraph_count_inside_parentheses_only():
    text = (
        "# Backwards Incompatible Changes\n"
        "### Widgets are rebuilt (#900080)\n"
        "The rebuild (#900081, #900082) follows #900083.\n"
    )
    notes = parse_release_notes(text)
    assert notes.entries[0].prs == [900080, 900081, 900082]
    assert notes.problems == [
        (3, "#900083 written without a link in prose: not counted as a pull request")
    ]


def test_citations_are_deduplicated_in_order():
    text = (
        "# Backwards Incompatible Changes\n"
        "### Widgets are rebuilt (#900091, #900090)\n"
        "#### Why\n"
        "The rebuild (#900090, #900091) also needs "
        "https://github.com/pytorch/pytorch/pull/900092.\n"
    )
    assert parse_release_notes(text).entries[0].prs == [900091, 900090, 900092]


def test_windows_line_endings_keep_line_numbers():
    text = H2_ENTRIES.replace("\n", "\r\n")
    assert [e.line for e in parse_release_notes(text).entries] == [3, 7, 19, 23, 28, 32]


def test_a_file_with_neither_section():
    text = "# Highlights\n- A new widget (#900095)\n\n# New Features\n## Gizmos (#900096)\n"
    notes = parse_release_notes(text)
    assert notes.entries == []
    assert notes.problems == [(None, NO_SECTION)]
    assert parse_release_notes("").problems == [(None, NO_SECTION)]


def test_a_section_heading_inside_code_is_no_section():
    text = "# Notes\n```\n# Deprecations\n- `a` is deprecated (#900097)\n```\n"
    assert parse_release_notes(text).problems == [(None, NO_SECTION)]


def test_a_section_without_entries_and_an_unclosed_fence_are_problems():
    text = (
        "# Backwards Incompatible Changes\n"
        "Nothing this time.\n"
        "# Deprecations\n"
        "- `torch.widgets.a` is deprecated (#900098)\n"
        "  ```python\n"
        "  # Deprecations\n"
    )
    notes = parse_release_notes(text)
    assert [(e.line, e.prs) for e in notes.entries] == [(4, [900098])]
    assert notes.problems == [
        (1, "no entries under 'Backwards Incompatible Changes'"),
        (5, "code block never closed: the rest is read as code"),
    ]


# The answer keys of the real release notes: facts (lines, kinds, areas, code-span names, PR
# numbers) and a label in our own words per entry; none of the notes' text.


def load_key(version):
    return json.loads((KEYS / f"release-notes-{version}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("version", KEY_VERSIONS)
def test_answer_key_is_well_formed(version):
    key = load_key(version)
    # "release", not "version": the release-post keys' loader looks for "version".
    assert "version" not in key and key["release"] == version
    source = key["source"]
    if version in FILE_KEY_VERSIONS:
        # Where the file's last commit is not at hand, a fork's copy that matches the
        # published release page (2.8: the key's note says how that was decided).
        assert source.get("fork_of", source["repo"]) == "meta-pytorch/torch-release-notes"
        assert source["path"] == f"{version}.0/final.md"
        assert re.fullmatch(r"[0-9a-f]{40}", source["commit"])
        assert source["url"] == (
            f"https://github.com/{source['repo']}/blob/{source['commit']}/{source['path']}"
        )
    else:  # the release page, as a stored copy of its text gives it (pinned by the copy's id)
        assert source["release_page"] == (
            f"https://github.com/pytorch/pytorch/releases/tag/v{version}.0"
        )
        assert re.fullmatch(r"[0-9]+", source["copy_id"]) and source["lines"]
    entries = key["entries"]
    fields = {"kind", "section", "area", "line", "apis", "replacement", "removed_in", "prs"}
    for entry in entries:
        assert fields | {"label"} <= set(entry) <= fields | {"label", "group"}, entry
        assert entry["kind"] in KINDS
        assert entry["section"] in (BC, DEPRECATIONS, "Backwards Incompatible changes")
        # What the Deprecations section lists is a deprecation; a breaking-changes item may
        # be one too, where its own words say so (2.8's grouped config options).
        assert entry["section"] != DEPRECATIONS or entry["kind"] == "deprecation", entry
        assert isinstance(entry["line"], int) and entry["line"] > 0
        assert all(type(n) is int and n > 0 for n in entry["prs"]), entry
        assert len(set(entry["prs"])) == len(entry["prs"])
        assert all(isinstance(name, str) and name.strip() for name in entry["apis"])
        assert len(set(entry["apis"])) == len(entry["apis"])
        assert isinstance(entry["area"], str) and isinstance(entry["replacement"], str)
        assert re.fullmatch(r"(\d+\.\d+(\.\d+)?)?", entry["removed_in"])
        assert entry["label"].strip() and len(entry["label"].split()) <= 8
    for deprecations in (False, True):
        lines = [e["line"] for e in entries if (e["section"] == DEPRECATIONS) == deprecations]
        assert lines, f"{version}: no entry (deprecations: {deprecations})"
        assert lines == sorted(set(lines)), f"{version}: lines not increasing"
    # Deprecations follow the BC section in every version of the notes.
    bc_lines = [e["line"] for e in entries if e["section"] != DEPRECATIONS]
    assert max(bc_lines) < min(e["line"] for e in entries if e["section"] == DEPRECATIONS)


def test_answer_keys_are_all_here():
    found = sorted(p.name for p in KEYS.glob("release-notes-*.json"))
    assert found == sorted(f"release-notes-{v}.json" for v in KEY_VERSIONS)


# The shape of the GitHub release pages of 2.5 and 2.6: the two sections are level-2 headings
# (in bold on 2.6's), areas level 3, entries level 3 or 4; a level-3 area name standing alone
# above level-3 entries; a level-1 title above it all.
RELEASE_PAGE = md(
    """\
# Widgets 8.6 Release Notes

## **Backwards Incompatible changes**

### Sprockets now spin the other way by default ([#900201](PULL/900201))
Pass `direction="old"` to keep the old spin.

### Removal of the Teacup build ([#900202](PULL/900202))

## **Deprecations**
### Gears

### `torch.gears.mesh` is deprecated ([#900203](PULL/900203))
Use `torch.gears.engage` instead.

## **New features**
### A feature that is not read ([#900204](PULL/900204))
"""
)

RELEASE_PAGE_AREAS = md(
    """\
## Backwards Incompatible changes
### Flywheels
- `torch.flywheels.spin` takes keywords only (#900211)

### Exporter
#### The `torch.exporter.legacy` path has been removed (#900212)
Call `torch.exporter.export`.

## Deprecations
### Flywheels
- `torch.flywheels.wobble` is deprecated (#900213)
"""
)


def test_sections_written_as_level_two_headings_in_bold():
    notes = parse_release_notes(RELEASE_PAGE)
    assert rows(notes) == [
        (5, "bc-breaking", "", [900201]),
        (8, "removal", "", [900202]),
        (13, "deprecation", "Gears", [900203]),
    ]
    entries = by_line(notes)
    assert entries[5].section == "Backwards Incompatible changes"  # as written, bold dropped
    assert entries[13].replacement == "torch.gears.engage"
    assert notes.problems == []


def test_level_two_sections_with_level_three_areas():
    notes = parse_release_notes(RELEASE_PAGE_AREAS)
    assert rows(notes) == [
        (3, "bc-breaking", "Flywheels", [900211]),
        (6, "removal", "Exporter", [900212]),
        (11, "deprecation", "Flywheels", [900213]),
    ]


def test_the_accuracy_report_scores_notes_against_their_keys(tmp_path, capsys):
    from releases.importing import notes_accuracy

    (tmp_path / "keys").mkdir()
    (tmp_path / "notes").mkdir()
    entry = {"section": "Backwards Incompatible changes", "apis": [], "replacement": ""}
    key = {
        "release": "8.6",
        "entries": [
            {**entry, "kind": "bc-breaking", "area": "", "line": 5, "prs": [900201]},
            {**entry, "kind": "bc-breaking", "area": "", "line": 8, "prs": [900202, 900299]},
            {**entry, "kind": "deprecation", "area": "Gears", "line": 13, "prs": [900203],
             "section": "Deprecations"},
        ],
    }  # fmt: skip
    (tmp_path / "keys" / "release-notes-8.6.json").write_text(json.dumps(key))
    (tmp_path / "keys" / "release-notes-8.7.json").write_text(json.dumps({**key, "release": "8.7"}))
    (tmp_path / "notes" / "8.6.md").write_text(RELEASE_PAGE)
    notes_accuracy.main([str(tmp_path / "keys"), "--notes", str(tmp_path / "notes")])
    out = capsys.readouterr().out
    # Line 8 is a removal, not a change (the key says otherwise); #900299 is not in the notes.
    assert "| 8.6 | 3 | 3 | 0 | 0 | 3/4 (75%) | 3/3 (100%) | 2/3 (67%) | 3/3 (100%) |" in out
    assert "Not scored (no <version>.md in" in out and out.rstrip().endswith("8.7")


# Issue 41: a heading over changes that each cite their own pull request is a group, not an
# entry; each change is a note of its own, its kind from its own words; an entry's own pull
# request (the one closing its first line) comes before one its text only mentions.
GROUPED = md(
    """\
# Backwards Incompatible Changes
## Gadgets
### A few gadget settings were renamed or removed
- Setting `gadgets.config.turbo` is deprecated (#900301).
Use `gadgets.config.speed` instead.
- Setting `gadgets.config.old_name` is renamed to `gadgets.config.new_name` (#900302).
- Setting `gadgets.config.legacy` has been removed (#900303).

### Follow-up to #900310: `torch.gadgets.spin` checks its input ([#900311](PULL/900311))

# Deprecations
- `torch.gadgets.wobble` is deprecated ([#900320](PULL/900320))
"""
)


def test_a_group_heading_gives_one_note_per_change_with_its_own_kind():
    notes = parse_release_notes(GROUPED)
    got = [(e.line, e.kind, e.group, e.prs, e.area) for e in notes.entries]
    group = "A few gadget settings were renamed or removed"
    assert got == [
        (4, "deprecation", group, [900301], "Gadgets"),
        (6, "bc-breaking", group, [900302], "Gadgets"),
        (7, "removal", group, [900303], "Gadgets"),
        (9, "bc-breaking", "", [900311, 900310], "Gadgets"),
        (12, "deprecation", "", [900320], ""),
    ]
    assert notes.entries[0].replacement == "gadgets.config.speed"


def test_a_heading_citing_its_own_pull_request_stays_one_entry_over_its_bullets():
    text = md(
        "# Backwards Incompatible Changes\n"
        "### Sprocket defaults changed ([#900330](PULL/900330))\n"
        "- `torch.sprocket.a` now defaults to 2 (#900331)\n"
        "- `torch.sprocket.b` now defaults to 3 (#900332)\n"
        "# Deprecations\n"
    )
    notes = parse_release_notes(text)
    assert [(e.line, e.prs, e.group) for e in notes.entries] == [(2, [900330, 900331, 900332], "")]

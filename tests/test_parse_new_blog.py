"""
The parser on the shapes of the posts from 2.8 on (no database): translations that quote the
English original, API-Unstable and API-Stable stages with the words the post wrote, "Non-Feature
Updates" and deprecations, and the new blog's HTML articles. The samples are in our own words.
"""

import json
import textwrap

import pytest

from releases.importing.parse import PostError, parse_file, parse_post
from releases.importing.parse.article import looks_like_html, read_article
from releases.importing.parse.features import kind_of
from releases.importing.parse.translation import english_body, english_half, is_translation
from tests.conftest import SAMPLES_DIR


def post(body, title="PyTorch 9.1 Release Blog", front=""):
    return f"---\ntitle: '{title}'\n{front}---\n" + textwrap.dedent(body)


def features(body, **kwargs):
    return parse_post(post(body, **kwargs)).features


def read(feature):
    return (feature.title, feature.stability, feature.stage_label, feature.kind)


def key(name):
    return json.loads((SAMPLES_DIR / f"{name}.expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["translation.md", "new-blog-article.html"])
def test_the_samples_read_as_their_keys_say(name):
    parsed = parse_file(SAMPLES_DIR / name)
    expected = key(name.rsplit(".", 1)[0])
    assert (parsed.title, parsed.version, parsed.post_url) == (
        expected["title"],
        expected["version"],
        expected["url"],
    )
    assert [
        {
            "title": feature.title,
            "stability": feature.stability,
            "stage_label": feature.stage_label,
            "kind": feature.kind,
            "line": feature.line,
            "links": [link.url for link in feature.links],
        }
        for feature in parsed.features
    ] == expected["features"]


# --- translations -----------------------------------------------------------------------------


def test_a_translation_is_read_through_the_english_it_quotes():
    parsed = parse_file(SAMPLES_DIR / "translation.md")
    assert parsed.is_translation
    assert parsed.title == "PyTorch 3.7 Release Blog"  # org_title, not the translated title
    assert parsed.announcement_url == "https://example.org/blog/pytorch-3-7-release-blog/"
    assert parsed.release_notes_url == "https://github.com/example/pytorch/releases/tag/v3.7.0"
    assert (parsed.commit_count, parsed.contributor_count) == (1234, 210)
    lines = (SAMPLES_DIR / "translation.md").read_text(encoding="utf-8").splitlines()
    for feature in parsed.features:
        # Each feature's line is its heading's line in the file, the translated half before it.
        assert feature.title in lines[feature.line - 1]
        assert " / " in lines[feature.line - 1] or "**" in lines[feature.line - 1]


def test_the_english_body_keeps_every_line_where_it_was():
    body = textwrap.dedent(
        """\
        한국어 문단입니다.
        > An English paragraph.

        ## 기능 / Features / and more
        ### 새 기능

        ```python
        x = 1  # 주석 / a comment
        ```
        **굵은 제목 / A bold name**
        - 한국어 항목
        > - An English item
        <table><tr><td>Beta</td></tr></table>
        """
    )
    english = english_body(body)
    assert english.count("\n") == body.count("\n")
    assert english.splitlines() == [
        "",
        "An English paragraph.",
        "",
        "## Features / and more",
        "",  # a heading with no English half
        "",
        "```python",
        "x = 1  # 주석 / a comment",  # code stays as it is
        "```",
        "**A bold name**",
        "",
        "- An English item",
        "<table><tr><td>Beta</td></tr></table>",
    ]


@pytest.mark.parametrize(
    "heading, english",
    [
        ("비-기능 업데이트 / Non-Feature Updates", "Non-Feature Updates"),
        ("MPS 개선 / 연산자 확장 / MPS Improvements / Operator Expansion",
         "MPS Improvements / Operator Expansion"),
        ("Already English / Both halves", "Already English / Both halves"),
        ("마치며", ""),
    ],
)  # fmt: skip
def test_the_english_half_of_a_heading(heading, english):
    assert english_half(heading) == english


@pytest.mark.parametrize(
    "meta, translated",
    [
        ({"org_link": "https://example.org/blog/x/"}, True),
        ({"category": ["pytorch.org", "translation"]}, True),
        ({"category": "Translation"}, True),
        ({"category": ["pytorch.org"]}, False),
        ({}, False),
    ],
)
def test_what_makes_a_post_a_translation(meta, translated):
    assert is_translation(meta) is translated


def test_a_translation_by_category_alone_keeps_its_title_and_reads_the_english():
    parsed = parse_post(
        post(
            """
            ## 베타 기능 / Beta Features

            ### 빠른 저장 / Quick save
            빠르게 저장합니다.
            > Saves quickly. [Docs](https://example.org/docs/quick-save)
            """,
            front="category: [translation]\n",
        )
    )
    assert parsed.is_translation and parsed.title == "PyTorch 9.1 Release Blog"
    [feature] = parsed.features
    assert read(feature) == ("Quick save", "beta", "Beta", "feature")
    assert [link.url for link in feature.links] == ["https://example.org/docs/quick-save"]
    assert feature.line == 8


def test_a_translation_that_quotes_no_original_says_so():
    text = post(
        "## 베타 기능 / Beta Features\n\n### 빠른 저장\n\n빠르게 저장합니다.\n",
        front="org_link: https://example.org/blog/x/\norg_title: PyTorch 9.1 Release Blog\n",
    )
    with pytest.raises(PostError, match="translation .* quoted English original"):
        parse_post(text)


def test_an_english_post_is_not_read_as_a_translation():
    # Quoted lines in an English post are quotes, not the original of a translation.
    [feature] = features(
        """
        ## Beta Features

        ### Quick save / load
        > A user said: this is fast.
        """
    )
    assert feature.title == "Quick save / load"


# --- stages from 2.8 on -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "heading, title, stability, label",
    [
        ("[API-Unstable] Ragged batches", "Ragged batches", "unstable", "API-Unstable"),
        ("[API-UNSTABLE] Ragged batches", "Ragged batches", "unstable", "API-UNSTABLE"),
        ("(API Unstable) Ragged batches", "Ragged batches", "unstable", "API Unstable"),
        ("Ragged batches [API-Unstable]", "Ragged batches", "unstable", "API-Unstable"),
        ("[API-Stable] Ragged batches", "Ragged batches", "stable", "API-Stable"),
        ("[Beta] Ragged batches", "Ragged batches", "beta", "Beta"),
        ("(Experimental) Ragged batches", "Ragged batches", "beta", "Experimental"),
        ("Ragged batches (Prototype)", "Ragged batches", "prototype", "Prototype"),
    ],
)
def test_a_tag_gives_the_stage_and_keeps_the_words(heading, title, stability, label):
    [feature] = features(f"## {heading}\n\nText.\n")
    assert read(feature) == (title, stability, label, "feature")
    assert feature.stage_source == "tag"


@pytest.mark.parametrize(
    "section, stability, label",
    [
        ("## API-UNSTABLE FEATURES", "unstable", "API-UNSTABLE"),
        ("## Performance Related API-UNSTABLE Features", "unstable", "API-UNSTABLE"),
        ("## API-Stable Features", "stable", "API-Stable"),
        ("**API-Unstable Features**", "unstable", "API-Unstable"),
        ("## Prototype Features", "prototype", "Prototype"),
    ],
)
def test_a_section_gives_its_stage_and_its_words(section, stability, label):
    found = features(
        f"""
        {section}

        ### Ragged batches

        Batches of uneven length.

        ### Sorted rows

        Rows sort faster.
        """
    )
    assert [read(feature) for feature in found] == [
        ("Ragged batches", stability, label, "feature"),
        ("Sorted rows", stability, label, "feature"),
    ]
    assert {feature.stage_source for feature in found} == {"section"}


def test_bold_names_under_a_stage_heading_are_its_features():
    found = features(
        """
        ### API-UNSTABLE Features

        **Ragged batches**

        Batches of uneven length.

        **Sorted rows**

        Rows sort faster.
        """
    )
    assert [read(feature) for feature in found] == [
        ("Ragged batches", "unstable", "API-UNSTABLE", "feature"),
        ("Sorted rows", "unstable", "API-UNSTABLE", "feature"),
    ]


@pytest.mark.parametrize(
    "line, stability, words",
    [
        ("API Unstable", "unstable", "API Unstable"),
        ("*API-Unstable*", "unstable", "API-Unstable"),
        ("**API-Stable**", "stable", "API-Stable"),
        ("[Beta]", "beta", "Beta"),
    ],
)
def test_a_line_under_a_heading_that_states_a_stage_tags_it(line, stability, words):
    found = features(
        f"""
        ## Compiler

        ### Ragged batches

        {line}

        Batches of uneven length.

        ### Sorted rows

        Rows sort faster.
        """
    )
    ragged, rows = found
    assert read(ragged) == ("Ragged batches", stability, words, "feature")
    assert ragged.stage_source == "tag"
    assert ragged.line == 7  # the heading's line; the stage line is no feature's text
    assert (rows.title, rows.stability, rows.stage_label) == ("Sorted rows", None, "")


def test_a_stage_line_after_the_prose_with_its_credits_tags_the_feature_and_keeps_links():
    found = features(
        """
        ## Distributed

        ### Ragged batches

        Batches of uneven length.

        API Unstable (PR [#12](https://github.com/example/pytorch/pull/12) by A. Person)

        #### Ragged sends

        Sends of uneven length.

        API Unstable

        ### Sorted rows

        Rows sort faster.

        ### Installation

        Pick the wheel for your platform.
        """
    )
    assert [read(feature) for feature in found] == [
        ("Ragged batches", "unstable", "API Unstable", "feature"),
        ("Ragged sends", "unstable", "API Unstable", "feature"),
        ("Sorted rows", None, "", "feature"),
    ]
    assert [link.url for link in found[0].links] == ["https://github.com/example/pytorch/pull/12"]


def test_a_line_that_says_more_than_a_stage_tags_nothing():
    [feature] = features("## Compiler\n\n### Ragged batches\n\nAPI Unstable for now, sadly.\n")
    assert (feature.stability, feature.stage_label) == (None, "")


def test_a_stage_from_prose_keeps_the_words_of_the_prose():
    [feature] = features("## Tools\n\n### Trace viewer\n\nThe trace viewer is now in Beta.\n")
    assert (feature.stability, feature.stage_source, feature.stage_label) == (
        "beta",
        "claim",
        "Beta",
    )


def test_a_post_that_states_no_stage_announces_bold_names_under_topic_headings():
    found = features(
        """
        Welcome to 9.1.

        ## Performance

        **Faster eigen solver**

        Batched solves run in one kernel.

        **Fused optimizer step**

        One launch per step. [Docs](https://example.org/docs/fused)

        ## Platforms

        ### ROCm

        **ROCm: memory segments**

        Segments grow as needed.

        **Note:**

        Nightly only.
        """
    )
    assert [(feature.title, feature.stability, feature.area) for feature in found] == [
        ("Faster eigen solver", None, "Performance"),
        ("Fused optimizer step", None, "Performance"),
        ("ROCm: memory segments", None, "ROCm"),  # "### ROCm" only groups its bold names
    ]
    assert found[0].line == 9


# --- Non-Feature Updates and deprecations -----------------------------------------------------


def test_non_feature_updates_are_notices_or_deprecations_with_no_stage():
    found = features(
        """
        ## API-UNSTABLE Features

        ### Ragged batches

        Batches of uneven length.

        ## Non-Feature Updates

        ### The legacy exporter is now deprecated

        Move to the new one.

        ### Python 3.9 support removed

        No more wheels.
        """
    )
    assert [read(feature) for feature in found] == [
        ("Ragged batches", "unstable", "API-UNSTABLE", "feature"),
        ("The legacy exporter is now deprecated", None, "", "deprecation"),
        ("Python 3.9 support removed", None, "", "deprecation"),
    ]
    # "Non-Feature Updates" names no area: its items are filed under the post's own.
    assert {feature.area for feature in found[1:]} == {""}
    assert {feature.section for feature in found[1:]} == {"Non-Feature Updates"}


def test_non_feature_updates_written_as_bold_names_or_bold_items():
    bold_names = features(
        """
        ## API-UNSTABLE Features

        **Ragged batches**

        Batches of uneven length.

        ## Non-Feature Updates

        **Default CUDA version**

        A newer CUDA by default.

        **TorchScript is now deprecated**

        Use the exporter.
        """
    )
    assert [read(feature) for feature in bold_names] == [
        ("Ragged batches", "unstable", "API-UNSTABLE", "feature"),
        ("Default CUDA version", None, "", "notice"),  # issue 41: a notice, no feature
        ("TorchScript is now deprecated", None, "", "deprecation"),
    ]
    bold_items = features(
        """
        ## [Beta] Ragged batches

        Batches of uneven length.

        ## Non-Feature Updates

        * **Nightly index moves**: a new address for nightly wheels.
        * **Removal of the legacy exporter**: use the new one.
        """
    )
    assert [read(feature) for feature in bold_items] == [
        ("Ragged batches", "beta", "Beta", "feature"),
        ("Nightly index moves", None, "", "notice"),
        ("Removal of the legacy exporter", None, "", "deprecation"),
    ]


@pytest.mark.parametrize(
    "title, kind",
    [
        ("TorchScript is now Deprecated", "deprecation"),
        ("Deprecation of CUDA 12.8 wheels", "deprecation"),
        ("Python 3.9 support removed", "deprecation"),
        ("Removal of the legacy exporter", "deprecation"),
        ("Dropping support for macOS x86", "deprecation"),
        ("Python 2 no longer supported", "deprecation"),
        ("Removing graph breaks in loops", "feature"),
        ("Faster sorting", "feature"),
    ],
)
def test_a_title_that_says_something_goes_is_a_deprecation(title, kind):
    assert kind_of(title) == kind


# --- HTML articles of the new blog ------------------------------------------------------------


ARTICLE = """\
<!doctype html>
<html>
<head>
<title>PyTorch 9.2 Release Blog | Sample Blog</title>
{head}
</head>
<body>
<header><a href="/">Home</a></header>
<article>
<h1>PyTorch 9.2 Release Blog</h1>
{time}
<h2>[API-Unstable] Ragged batches</h2>
<p>Batches of <em>uneven</em> length: <a href="https://example.org/docs/ragged">docs</a>.</p>
<p>Stars * and _underscores_ and [Beta] brackets stay text.</p>
<ul>
  <li><strong>Packing</strong>: with a <a href="/docs/packing">guide</a></li>
  <li>Padding-free</li>
</ul>
</article>
</body>
</html>
"""


def article(head="", time=""):
    return ARTICLE.format(head=head, time=time)


def test_an_html_article_is_read_as_blocks_with_the_lines_of_its_elements():
    parsed = parse_post(article(), filename="pytorch-9-2.html")
    [feature] = parsed.features
    assert parsed.title == "PyTorch 9.2 Release Blog"  # <title> without the site's name
    assert parsed.version == "9.2"
    assert read(feature) == ("Ragged batches", "unstable", "API-Unstable", "feature")
    assert feature.line == 12  # the <h2>'s line in the page
    assert [(link.url, link.line) for link in feature.links] == [
        ("https://example.org/docs/ragged", 13),
        ("https://pytorch.org/docs/packing", 16),
    ]


def test_the_article_body_becomes_markdown_the_parser_reads():
    found = read_article(article())
    lines = found.markdown.splitlines()
    assert "## \\[API-Unstable\\] Ragged batches" in lines
    assert "Batches of *uneven* length: [docs](<https://example.org/docs/ragged>)." in lines
    # Page text that looks like markdown stays text.
    assert "Stars \\* and \\_underscores\\_ and \\[Beta\\] brackets stay text." in lines
    assert "- **Packing**: with a [guide](</docs/packing>)" in lines
    assert "- Padding-free" in lines
    assert not any("Home" in line for line in lines)  # the page's header is no article text
    assert not any(line.startswith("# ") for line in lines)  # nor is its title
    line_of = {line: found.line_map[number] for number, line in enumerate(lines, start=1)}
    assert line_of["- Padding-free"] == 17


@pytest.mark.parametrize(
    "head, time, date, line",
    [
        ('<meta property="article:published_time" content="2033-05-06T09:00:00+00:00">', "",
         "2033-05-06", 5),
        ('<meta itemprop="datePublished" content="2033-05-07">', "", "2033-05-07", 5),
        ("", '<time datetime="2033-05-08T10:00:00Z">May 8</time>', "2033-05-08", 11),
        ("", "", None, None),
    ],
)  # fmt: skip
def test_the_article_date_comes_from_its_meta_tags_or_its_time(head, time, date, line):
    parsed = parse_post(article(head, time), filename="post.html")
    assert (parsed.release_date.isoformat() if parsed.release_date else None) == date


def test_an_article_date_that_is_no_date_is_an_error_naming_its_line():
    page = article('<meta property="article:published_time" content="2033-02-30">')
    with pytest.raises(PostError) as error:
        parse_post(page, filename="post.html")
    assert error.value.line == 5 and "'2033-02-30' is not a date" in error.value.message


def test_the_canonical_url_is_the_post_url():
    head = (
        '<link rel="canonical" href="https://example.org/blog/pytorch-9-2/">'
        '<meta property="og:url" content="https://example.org/elsewhere/">'
    )
    parsed = parse_post(article(head), filename="post.html")
    assert parsed.post_url == parsed.announcement_url == "https://example.org/blog/pytorch-9-2/"
    og_only = parse_post(article('<meta property="og:url" content="https://example.org/og/">'))
    assert og_only.post_url == "https://example.org/og/"
    downloaded = parse_post(article(), filename="", url="https://example.org/fetched/")
    assert downloaded.post_url == "https://example.org/fetched/"


@pytest.mark.parametrize(
    "text, filename, is_html",
    [
        ("<!DOCTYPE html><html></html>", "", True),
        ("\ufeff  <html lang='en'>", "", True),
        ("<!-- saved --><html>", "post", True),
        ("---\ntitle: x\n---\n<div>", "", False),
        ("anything", "page.HTML", True),
        ("<html>", "post.md", False),
    ],
)
def test_html_is_told_by_its_name_or_how_it_begins(text, filename, is_html):
    assert looks_like_html(text, filename) is is_html


def test_an_article_without_features_is_refused():
    page = "<html><head><title>Hello</title></head><body><p>Just words.</p></body></html>"
    with pytest.raises(PostError, match="announces no features"):
        parse_post(page)


def test_an_article_without_a_title_is_refused():
    with pytest.raises(PostError, match="no title"):
        parse_post("<html><body><h2>[Beta] X</h2></body></html>")


def test_an_article_nested_beyond_reason_is_refused_in_one_line():
    """Issue 42: 100,000 nested <div>s end in a PostError, not a RecursionError's traceback."""
    depth = 100_000
    page = (
        "<html><head><title>PyTorch 9.1 Release Blog</title></head><body><article><h1>PyTorch "
        "9.1 Release Blog</h1>"
        + "<div>" * depth
        + "x"
        + "</div>" * depth
        + "</article></body></html>"
    )
    with pytest.raises(PostError, match="nests its elements too deeply"):
        parse_post(page, filename="9-1.html")

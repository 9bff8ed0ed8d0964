"""The release-post parser, on small posts written for each shape it must read."""

import datetime as dt
import json
import textwrap

import pytest

from releases.importing.accuracy import report
from releases.importing.parse import LINK_KINDS, PostError, parse_file, parse_post
from releases.models import LinkKind
from tests.conftest import SAMPLES_DIR


def post(body, title="PyTorch 4.2 released", front=""):
    return f"---\ntitle: '{title}'\n{front}---\n" + textwrap.dedent(body)


def features(body, **kwargs):
    return parse_post(post(body, **kwargs)).features


def summary(body, **kwargs):
    return [(f.title, f.stability, f.area) for f in features(body, **kwargs)]


# --- stability tags and titles ---------------------------------------------------------------


def test_prefix_tags_in_brackets_and_parentheses_with_markdown_in_the_title():
    found = summary(
        """
        # Frontend APIs
        ## [Beta] The `torch.thing` module
        Text.
        ### (Stable) *Emphasised* name
        Text.
        """
    )
    assert found == [
        ("The torch.thing module", "beta", "Frontend APIs"),
        ("Emphasised name", "stable", "Frontend APIs"),
    ]


def test_suffix_tags_and_the_old_experimental_label():
    found = summary(
        """
        # Tools
        ## Fast path (Stable)
        ## Slow path [Prototype]
        ## Named things (Experimental)
        ## [Experimental] Other things
        """
    )
    assert [(title, stability) for title, stability, _ in found] == [
        ("Fast path", "stable"),
        ("Slow path", "prototype"),
        ("Named things", "beta"),
        ("Other things", "beta"),
    ]


def test_heading_levels_two_to_four_mixed_and_one_indented():
    found = summary(
        """
        # Area one
        ## [Beta] Level two
        #### [Beta] Level four
        ### [Stable] Level three, under level two
         ## [Prototype] Indented by a space
        """
    )
    assert [title for title, _, _ in found] == [
        "Level two",
        "Level four",
        "Level three, under level two",
        "Indented by a space",
    ]
    assert {area for _, _, area in found} == {"Area one"}


def test_a_section_heading_sets_the_stability_of_its_untagged_items():
    found = summary(
        """
        # Extras
        ## Prototype Features
        These are in nightlies.
        #### Alpha helper
        Text.
        #### Beta helper
        Text.
        """
    )
    assert found == [
        ("Alpha helper", "prototype", "Extras"),
        ("Beta helper", "prototype", "Extras"),
    ]


def test_bold_bullet_items_are_features_and_their_group_heading_is_not():
    found = summary(
        """
        # Distributed
        ### (Beta) Distributed updates
        A few things:
        * **(Beta) First thing**: does one thing. See [docs](https://example.org/1).
        * **(Prototype) Second thing** - does another.
        * Not a feature, just a bullet.
        """
    )
    assert found == [
        ("First thing", "beta", "Distributed"),
        ("Second thing", "prototype", "Distributed"),
    ]


def test_bold_paragraphs_and_bold_stability_sections():
    found = summary(
        """
        # Compiler
        **Beta Features**

        **Partial capture**

        Captures part of a program.

        **Example usage:**

        **Prototype Features**

        **Shared caches**

        Shares things.

        **(Stable) Tagged paragraph**: with its text on the same line.
        """
    )
    assert found == [
        ("Partial capture", "beta", "Compiler"),
        ("Shared caches", "prototype", "Compiler"),
        ("Tagged paragraph", "stable", "Compiler"),
    ]


def test_untagged_headings_below_an_area_are_features_without_stability():
    found = summary(
        """
        # Updated Domain Libraries
        ## torchvision 0.9
        New models.
        # Mobile
        ## Demo apps
        New demos.
        """
    )
    assert found == [
        ("torchvision 0.9", None, "torchvision"),  # a library release files under the library
        ("Demo apps", None, "Mobile"),
    ]


# --- links -----------------------------------------------------------------------------------


def links_of(body):
    (feature,) = features("# Area\n## [Beta] The feature\n" + textwrap.dedent(body))
    return [(link.kind, link.label, link.url) for link in feature.links]


def test_bulleted_label_then_link_forms():
    assert links_of(
        """
        * Documentation | [Link](https://example.org/docs)
        * Design doc ([Link](https://example.org/design))
        * [RFC](https://example.org/rfc/1)
        * Usage examples ([Link](https://example.org/examples))
        """
    ) == [
        ("documentation", "Documentation", "https://example.org/docs"),
        ("design_doc", "Design doc", "https://example.org/design"),
        ("rfc", "RFC", "https://example.org/rfc/1"),
        ("usage_examples", "Usage examples", "https://example.org/examples"),
    ]


def test_prose_links_take_their_kind_from_text_context_or_url():
    assert links_of(
        """
        See the [documentation](https://example.org/a) and this [tutorial](https://example.org/b).
        The RFC can be found [here](https://github.com/example/repo/issues/3).
        It builds on [a paper](https://arxiv.org/abs/1234.5678) and [this PR](https://github.com/example/repo/pull/9).
        """
    ) == [
        ("documentation", "documentation", "https://example.org/a"),
        ("tutorial", "tutorial", "https://example.org/b"),
        ("rfc", "RFC", "https://github.com/example/repo/issues/3"),
        ("paper", "a paper", "https://arxiv.org/abs/1234.5678"),
        ("pull_request", "this PR", "https://github.com/example/repo/pull/9"),
    ]


def test_missing_link_placeholders_bulleted_unbulleted_and_lower_case():
    assert links_of(
        """
        * Documentation | Link **Missing Link**
        * Usage examples | Link **Missing Link**

         Design doc | Link  **missing link**

        Some prose, then the note. Tutorial | Link **Missing Link**
        """
    ) == [
        ("documentation", "Documentation", ""),
        ("usage_examples", "Usage examples", ""),
        ("design_doc", "Design doc", ""),
        ("tutorial", "Tutorial", ""),
    ]


def test_a_bare_link_label_among_link_items_is_a_missing_link():
    assert links_of(
        """
        * Tutorial for doing the thing well
        * Documentation ([Link](https://example.org/docs))
        """
    ) == [
        ("tutorial", "Tutorial for doing the thing well", ""),
        ("documentation", "Documentation", "https://example.org/docs"),
    ]


def test_html_links_tables_and_relative_urls():
    assert links_of(
        """
        Read the <a href="/docs/stable/thing.html">reference</a>.

        <table>
          <tr><td>Design</td><td><a href='https://example.org/design'>design doc</a></td></tr>
        </table>

        | Resource | Where |
        |---|---|
        | Blog | [post](https://example.org/blog/thing) |

        ![a picture]({{ site.url }}/assets/picture.png)
        """
    ) == [
        ("documentation", "reference", "https://pytorch.org/docs/stable/thing.html"),
        ("design_doc", "design doc", "https://example.org/design"),
        ("blog_post", "post", "https://example.org/blog/thing"),
    ]


def test_each_url_is_kept_once_per_feature():
    found = links_of("[docs](https://example.org/a), again [here](https://example.org/a).")
    assert [url for _, _, url in found] == ["https://example.org/a"]


def test_every_kind_the_parser_gives_is_a_kind_the_catalog_stores():
    assert set(LINK_KINDS) == set(LinkKind.values)


# --- what is not a feature -------------------------------------------------------------------


def test_code_comments_are_not_headings_even_in_oddly_indented_fences():
    found = summary(
        """
        # Area
        ## [Beta] Real feature

        ```python
        # a comment, not a heading
        ## [Stable] nor this
        ```

           ```
           # indented fence
              ```
        """
    )
    assert found == [("Real feature", "beta", "Area")]


def test_events_hackathons_and_sign_offs_are_not_features():
    parsed = parse_post(
        post(
            """
            # Area
            ## [Beta] The only feature
            Text with [docs](https://example.org/docs).

            # Additional updates
            ## Summer Hackathon
            Join [us](https://example.org/hack).
            ## PyTorch Developer Day, May 1
            * Watch Link

            Thanks for reading! Follow us on [Twitter](https://example.org/t).

            Cheers!
            """
        )
    )
    assert [f.title for f in parsed.features] == ["The only feature"]
    assert [link.url for link in parsed.features[0].links] == ["https://example.org/docs"]
    assert parsed.skipped_sections == ["Summer Hackathon", "PyTorch Developer Day, May 1"]


def test_a_sign_off_after_the_last_feature_does_not_lend_it_links():
    (feature,) = features(
        """
        # Area
        ## [Beta] Last feature
        Its [docs](https://example.org/docs).

        Thanks for reading, and join the [forums](https://example.org/forums).
        """
    )
    assert [link.url for link in feature.links] == ["https://example.org/docs"]


# --- the release -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "version"),
    [
        ("PyTorch 1.10 Release, including CUDA Graphs APIs", "1.10"),
        ("PyTorch 2.0: Our next generation release", "2.0"),
        ("PyTorch v2.1.2 bug-fix release", "2.1.2"),
        ("PyTorch 2.0.0rc1 is ready for testing", "2.0.0rc1"),
        ("New library releases in PyTorch", None),
    ],
)
def test_version_from_the_title(title, version):
    assert parse_post(post("# A\n## [Beta] X\n", title=title)).version == version


def test_version_given_explicitly_wins():
    parsed = parse_post(post("# A\n## [Beta] X\n", title="No version here"), version="v3.4")
    assert parsed.version == "3.4"


def test_release_facts_from_front_matter_filename_and_preamble():
    text = post(
        """
        Built from 3,210 commits by 45 contributors. Full release notes [here](https://example.org/notes).
        Highlights include:
        1. First highlight;
        2. Second highlight.

        # A
        ## [Beta] X
        """,
        front="date: 2030-05-06\npermalink: /blog/pytorch-4.2/\n",
    )
    parsed = parse_post(text)
    assert parsed.release_date == dt.date(2030, 5, 6)
    assert parsed.announcement_url == "https://pytorch.org/blog/pytorch-4.2/"
    assert parsed.release_notes_url == "https://example.org/notes"
    assert (parsed.commit_count, parsed.contributor_count) == (3210, 45)
    assert parsed.highlights == ["First highlight", "Second highlight."]
    dated = parse_post(post("# A\n## [Beta] X\n"), filename="_posts/2031-01-02-pytorch.md")
    assert dated.release_date == dt.date(2031, 1, 2)


def test_slugs_are_unique_within_a_post():
    found = features("# A\n## [Beta] Same name\n# B\n## [Stable] Same name\n")
    assert [f.slug for f in found] == ["same-name", "same-name-2"]


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "line", "says"),
    [
        (b"# Just markdown\n", 1, "no front matter"),
        (b"---\ntitle: x\n# never closed\n", 1, "never closed"),
        (b"---\ntitle: [unclosed\n---\n", 2, "not valid YAML"),
        (b"---\nauthor: me\n---\n# A\n", 2, "no 'title:'"),
        (
            b"---\ntitle: PyTorch 4.2\n---\nJust words, no features.\n",
            None,
            "announces no features",
        ),
        (b"---\ntitle: x\n---\n\x00\x01binary", 4, "binary file"),
        (b"---\ntitle: x\n---\nline\n\xff\xfe bad", 5, "not UTF-8"),
        (b"  \n\n", 1, "empty"),
    ],
)
def test_bad_files_fail_with_a_line(tmp_path, content, line, says):
    path = tmp_path / "post.md"
    path.write_bytes(content)
    with pytest.raises(PostError, match=says) as error:
        parse_file(path)
    assert error.value.line == line


def test_an_unreadable_path_fails_clearly(tmp_path):
    with pytest.raises(PostError, match="cannot read"):
        parse_file(tmp_path / "absent.md")
    with pytest.raises(PostError, match="not a regular file"):
        parse_file(tmp_path)


# --- accuracy on posts in other formats ------------------------------------------------------


def test_accuracy_on_the_sample_posts_meets_the_bar():
    total, lines = report(SAMPLES_DIR)
    assert total.features >= 50, "too few sample features to measure anything"
    assert total.feature_f1 >= 0.95, "\n".join(lines)
    assert total.stability_accuracy >= 0.97, "\n".join(lines)
    assert total.link_recall >= 0.95, "\n".join(lines)
    assert total.claims_found == total.claims, "\n".join(lines)


def test_the_report_scores_real_posts_from_a_folder_beside_their_keys(tmp_path, capsys):
    """`make parser-report POSTS=...`: keys name their post; a post that fails is named."""
    from releases.importing.accuracy import main

    posts, keys = tmp_path / "_posts", tmp_path / "keys"
    posts.mkdir()
    keys.mkdir()
    (posts / "2031-1-9-structure.md").write_text((SAMPLES_DIR / "structure.md").read_text())
    key = json.loads((SAMPLES_DIR / "structure.expected.json").read_text())
    (keys / "structure.json").write_text(json.dumps({**key, "post": "2031-1-9-structure.md"}))
    (keys / "gone.json").write_text(json.dumps({**key, "post": "2031-1-10-gone.md"}))
    assert main([str(keys), "--posts", str(posts)]) == 0
    out = capsys.readouterr().out
    assert "2031-1-9-structure.md" in out and "9/9" in out
    assert "2031-1-10-gone.md" in out and "not imported: cannot read the file" in out
    # The missing post counts against recall: 9 of 18 announced features found.
    assert "recall 0.500, precision 1.000" in out


# --- structure, not strings --------------------------------------------------------------------


def test_a_features_sub_headings_and_capability_lists_are_its_parts():
    post = parse_file(SAMPLES_DIR / "structure.md")
    features = {feature.title: feature for feature in post.features}
    studio = features["Trace Studio"]
    assert [link.url for link in studio.links] == [
        "https://example.org/docs/trace-studio.html",
        "https://example.org/docs/allocator-guide.html",
    ]
    assert not {"Timeline view", "Memory view", "Peak finder", "Leak hints"} & set(features)
    # An untagged heading at the level the post announces features at, under a stability
    # section: one feature, its API headings its parts.
    assert features["Widget framework"].stability == "prototype"
    assert features["Widget framework"].stage_source == "section"
    assert not {"Widget components API", "Widget scheduling API"} & set(features)


def test_bold_items_with_their_own_links_under_a_shared_heading_are_features():
    post = parse_file(SAMPLES_DIR / "structure.md")
    optimizations = [f for f in post.features if f.area == "Performance Improvements"]
    assert [(f.title, len(f.links)) for f in optimizations] == [
        ("Fused layer norm", 1),
        ("Vectorized gather", 1),
        ("Cheaper softmax backward", 1),
    ]
    # The opening's bold highlights are highlights, not features.
    assert [f.title for f in post.features].count("Trace Studio") == 1


def test_a_summary_table_adds_only_the_features_no_section_describes():
    post = parse_file(SAMPLES_DIR / "structure.md")
    titles = [feature.title for feature in post.features]
    assert titles.count("Trace Studio") == titles.count("Quiet logging") == 1
    assert "Sharded optimizer state" not in titles  # "Sharded optimizers" describes it
    arm = next(f for f in post.features if f.title == "Server wheels for Arm")
    assert (arm.stability, arm.stage_source, arm.links) == ("beta", "section", [])


def test_an_introducing_section_is_a_feature_with_the_stage_its_prose_states():
    post = parse_file(SAMPLES_DIR / "structure.md")
    weave = next(f for f in post.features if f.title == "TorchWeave")
    assert (weave.stability, weave.stage_source) == ("beta", "claim")
    assert [c.feature for c in post.claims] == [weave.slug]
    # An acknowledgements section is never a feature, whatever its shape.
    assert "Acknowledgements" not in [f.title for f in post.features]


def test_credits_and_profiles_are_links_by_role_not_documentation():
    post = parse_post(
        textwrap.dedent(
            """\
            ---
            title: 'PyTorch 5.1 with a new tracer'
            ---

            # Frontend APIs

            ## [Beta] A new tracer

            Read the [documentation](https://example.org/docs/tracer.html) first.
            Its design owes much to [Other Framework](https://example.org/other) and
            [Third Library](https://github.com/example/third), which we acknowledge as
            influences. Questions go to the [issue tracker](https://github.com/pytorch/pytorch/issues).

            * Acknowledgement | [somebody](https://github.com/somebody)
            """
        )
    )
    kinds = {link.label: link.kind for link in post.features[0].links}
    assert kinds == {
        "documentation": "documentation",
        "Other Framework": "acknowledgement",
        "Third Library": "acknowledgement",
        "issue tracker": "issue",
        "somebody": "profile",
    }


# --- rules learned from curating the 1.5-2.1 posts (issue 21) --------------------------------


def test_a_now_stable_tag_is_the_stage_and_its_sub_headings_are_parts():
    post = parse_file(SAMPLES_DIR / "now-tags.md")
    features = {feature.title: feature for feature in post.features}
    remote = features["Remote execution APIs"]
    assert (remote.stability, remote.stage_source) == ("stable", "tag")
    assert "https://example.org/docs/remote-grad.html" in [link.url for link in remote.links]
    assert not {"Remote calls", "Remote gradients", "Remote optimizer"} & set(features)


def test_untagged_bold_bullets_under_a_tagged_heading_are_its_parts():
    post = parse_file(SAMPLES_DIR / "now-tags.md")
    titles = [feature.title for feature in post.features]
    assert not {"Memory timeline", "Kernel table", "Stream lanes"} & set(titles)
    viewer = next(f for f in post.features if f.title == "Trace viewer")
    assert len(viewer.links) == 2


def test_deprecations_and_untagged_top_level_sections_are_features():
    post = parse_file(SAMPLES_DIR / "now-tags.md")
    features = {feature.title: feature for feature in post.features}
    assert features["Python 3.9 no longer supported"].stability is None
    # A heading partly made of a link keeps the link's words in its title and the link.
    cuda = features["Deprecation of CUDA 12.0 and of old drivers"]
    assert [link.url for link in cuda.links] == [
        "https://example.org/blog/cuda-12-0-deprecation",
        "https://example.org/support-matrix",
    ]
    assert post.skipped_sections == []


def test_a_bare_group_heading_over_tagged_features_is_an_area():
    post = parse_file(SAMPLES_DIR / "groups-and-bold-names.md")
    features = {feature.title: feature for feature in post.features}
    assert "Data loading" not in features
    assert features["Resumable loader"].area == features["Cloud readers"].area == "Data loading"
    # A heading with prose of its own is a feature, and its untagged sub-heading a part.
    assert "Graphwise" in features and "Sparse batching" not in features


def test_untagged_bold_paragraphs_name_features_once_the_post_writes_them_so():
    post = parse_file(SAMPLES_DIR / "groups-and-bold-names.md")
    improvements = [f.title for f in post.features if f.area == "Performance Improvements"]
    assert improvements == ["Wider vector kernels", "Faster half-precision reductions"]
    # Nor before the first tagged one, nor a caption or a label.
    assert "Table: speedups by model" not in [f.title for f in post.features]
    before = features(
        """
        ## Tools

        **Handy scripts**

        Scripts for common chores.

        ### [Beta] Real feature

        Text.
        """
    )
    assert [f.title for f in before] == ["Real feature"]


def test_a_table_cell_names_a_feature_whose_words_run_together():
    post = parse_file(SAMPLES_DIR / "groups-and-bold-names.md")
    titles = [feature.title for feature in post.features]
    assert "Quick Attention" not in titles and "QuickAttention API" in titles


def test_the_report_lists_what_the_parser_missed_on_request(tmp_path, capsys):
    """`--details` names each missed feature, stage, link URL and claim under its post."""
    from releases.importing.accuracy import main

    (tmp_path / "post.md").write_text((SAMPLES_DIR / "now-tags.md").read_text())
    key = json.loads((SAMPLES_DIR / "now-tags.expected.json").read_text())
    key["features"].append({"title": "Never announced", "stability": "beta", "links": []})
    key["features"][1]["links"].append("https://example.org/nowhere")
    key["claims"].append({"subject": "Imaginary widget", "stability": "stable"})
    (tmp_path / "post.expected.json").write_text(json.dumps(key))
    assert main([str(tmp_path), "--details"]) == 0
    out = capsys.readouterr().out
    assert "missed: Never announced (beta)" in out
    assert "link: Trace viewer: https://example.org/nowhere" in out
    assert "claim: Imaginary widget (stable)" in out
    assert main([str(tmp_path)]) == 0
    assert "missed:" not in capsys.readouterr().out

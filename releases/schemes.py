"""
PyTorch's ways of saying how mature a feature is, as they changed over time: the facts the
``/stages/`` page explains and the matrix marks (where a scheme begins). Facts carry over from
the sources named (versions, dates, labels, URLs); the explanations are our own words.
No Django here.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Scheme:
    name: str
    since: str  # the first release announced under it
    announced: str  # when PyTorch announced it (YYYY-MM or YYYY-MM-DD)
    labels: tuple  # (label as posts write it, the catalog's stage, what it means in our words)
    source_title: str
    source_url: str
    note: str = ""


SCHEMES = (
    Scheme(
        name="Experimental",
        since="1.2",
        announced="2019-08",
        labels=(("Experimental", "beta", "Usable, but its API and behaviour may still change."),),
        source_title="The PyTorch 1.2 to 1.5 release posts",
        source_url="https://pytorch.org/blog/pytorch-1.2-and-domain-api-release/",
        note="Before 1.6 the posts marked unfinished features as experimental; the catalog files "
        "them as beta, the stage the next scheme gave such features.",
    ),
    Scheme(
        name="Stable, Beta, Prototype",
        since="1.6",
        announced="2020-07-28",
        labels=(
            ("Stable", "stable", "Kept working and backwards compatible for the long term."),
            (
                "Beta",
                "beta",
                "Complete enough to try and to give feedback on; its API may still change.",
            ),
            (
                "Prototype",
                "prototype",
                "Early work, often only in source builds or nightlies, that may change a lot or "
                "be dropped.",
            ),
        ),
        source_title="PyTorch feature classification changes",
        source_url="https://pytorch.org/blog/pytorch-feature-classification-changes/",
    ),
    Scheme(
        name="API-Stable, API-Unstable",
        since="2.8",
        announced="2025-08",
        labels=(
            (
                "API-Stable",
                "stable",
                "The API is held stable and backwards compatible, as Stable was before.",
            ),
            (
                "API-Unstable",
                "unstable",
                "Anything short of that: what the previous scheme split into beta and prototype. "
                "A feature that was beta or prototype and is now API-Unstable was relabelled, "
                "not promoted or demoted.",
            ),
        ),
        source_title="RFC pytorch/pytorch#152134",
        source_url="https://github.com/pytorch/pytorch/issues/152134",
        note="The 2.13 announcement adds that prototype is no longer used.",
    ),
)


def scheme_of(version_key, key_of):
    """The scheme a release of ``version_key`` was announced under (``key_of`` reads versions)."""
    current = None
    for scheme in SCHEMES:
        if key_of(scheme.since) <= version_key:
            current = scheme
    return current


def scheme_starts():
    """{the version each scheme begins at: its name}."""
    return {scheme.since: scheme.name for scheme in SCHEMES}

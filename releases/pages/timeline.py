"""
A track's timeline as a picture: versions along the axis in version order, one mark per
appearance, placed higher the more stable its stage, so a promotion reads as a step up (an
appearance with no stage is a neutral mark at the stage the track holds); after
the last appearance a dashed line carries the stage the track kept to the newest version.
Plain geometry for the page's server-rendered SVG; no Django here.

The picture keeps its size (the page scrolls it sideways on a narrow screen rather than shrink
its text): each version gets ``step`` pixels, and the version labels under the axis are turned
when they would not fit side by side.
"""

from dataclasses import dataclass

from releases.classification import NO_STAGE

# Top to bottom. API-Unstable (from 2.8) has a row of its own above beta: a step between it and
# beta or prototype is a relabel, drawn as such (``relabelled`` steps), not a promotion.
LEVELS = {"stable": 0, "unstable": 1, "beta": 2, "prototype": 3, "": 4}
LABELS = {
    "stable": "Stable",
    "unstable": "Unstable",
    "beta": "Beta",
    "prototype": "Prototype",
    "": "No stage",
}
NONE_LEVEL = LEVELS[""]
LEFT, RIGHT, TOP, ROW, AXIS_GAP = 84, 24, 16, 30, 26
CHAR_WIDTH = 7  # about what a character of a 12 px label takes
TURN = 40  # degrees: how far labels that would overlap are turned


@dataclass
class Mark:
    x: float
    y: float
    version: str
    stability: str
    label: str
    title: str
    from_claim: bool
    relabelled: bool = False  # the stage is the previous one under the new scheme's name


@dataclass
class Timeline:
    width: int
    height: int
    axis_y: float
    axis_x: float  # where the axis and the rows start, right of the row labels
    ticks: list  # (x, version, has_mark)
    turned: bool  # the version labels are turned so as not to overlap
    turn: int
    rows: list  # (y, label, stability)
    marks: list
    steps: list  # (x1, y1, x2, y2, relabelled): the line from one mark to the next
    kept: tuple | None  # (x1, y, x2): the last stage, carried to the newest version


def label_width(version):
    return CHAR_WIDTH * len(version)


def draw(versions, appearances, step=52, lead=1):
    """
    ``versions``: every published version, in version order. ``appearances``: (version,
    stability, title, from_claim, relabelled) in version order; ``relabelled`` says the
    stage is the one before under its new scheme's name. The axis runs from ``lead`` versions
    before the first appearance to the newest version: a track's own years, in context, and
    a recent track's picture fits a phone.
    """
    known = set(versions)
    first = next((version for version, *_ in appearances if version in known), None)
    if first is not None:
        versions = versions[max(versions.index(first) - lead, 0) :]
    widest = max((label_width(version) for version in versions), default=0)
    turned = widest + 6 > step
    label_room = 16 + (widest * 0.65 if turned else 0)  # under the axis
    width = LEFT + RIGHT + step * max(len(versions) - 1, 1)
    axis_y = TOP + ROW * (len(LEVELS) - 1) + AXIS_GAP
    height = round(axis_y + label_room + 8)
    x_of = {version: LEFT + index * step for index, version in enumerate(versions)}
    marks, held = [], ""
    for version, stability, title, from_claim, relabelled in appearances:
        # An appearance with no stage changes none: its neutral mark sits at the stage the
        # track holds, never on a row below, where it would read as a demotion.
        held = stability or held
        if version not in x_of:
            continue
        marks.append(
            Mark(
                x=x_of[version],
                y=TOP + ROW * LEVELS.get(held, NONE_LEVEL),
                version=version,
                stability=stability or NO_STAGE,
                label=LABELS.get(stability or "", "No stage"),
                title=title,
                from_claim=from_claim,
                relabelled=relabelled,
            )
        )
    seen = {mark.version for mark in marks}
    last_x = x_of[versions[-1]] if versions else 0
    kept = (marks[-1].x, marks[-1].y, last_x) if marks and marks[-1].x < last_x else None
    return Timeline(
        width=width,
        height=height,
        axis_y=axis_y,
        axis_x=LEFT - 14,
        ticks=[(x, version, version in seen) for version, x in x_of.items()],
        turned=turned,
        turn=-TURN,
        rows=[
            (TOP + ROW * level, LABELS[stage], stage or NO_STAGE) for stage, level in LEVELS.items()
        ],
        marks=marks,
        steps=[(a.x, a.y, b.x, b.y, b.relabelled) for a, b in zip(marks, marks[1:], strict=False)],
        kept=kept,
    )

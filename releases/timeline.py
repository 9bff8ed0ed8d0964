"""
A track's timeline as a picture: versions along the axis in version order, one mark per
appearance, placed higher the more stable its stage, so a promotion reads as a step up.
Plain geometry for the page's server-rendered SVG; no Django here.
"""

from dataclasses import dataclass

LEVELS = {"stable": 0, "beta": 1, "prototype": 2, "": 3}  # top to bottom
LABELS = {"stable": "Stable", "beta": "Beta", "prototype": "Prototype", "": "No stage"}
LEFT, RIGHT, TOP, ROW, AXIS_GAP = 92, 28, 24, 34, 34


@dataclass
class Mark:
    x: float
    y: float
    version: str
    stability: str
    label: str
    title: str
    from_claim: bool


@dataclass
class Timeline:
    width: int
    height: int
    axis_y: float
    ticks: list  # (x, version, has_mark)
    rows: list  # (y, label, stability)
    marks: list
    steps: list  # (x1, y1, x2, y2): the line from one mark to the next


def draw(versions, appearances, step=64):
    """
    ``versions``: every published version, in version order (the axis). ``appearances``:
    (version, stability, title, from_claim) in version order.
    """
    width = LEFT + RIGHT + step * max(len(versions) - 1, 1)
    height = TOP + ROW * (len(LEVELS) - 1) + AXIS_GAP + 24
    axis_y = TOP + ROW * (len(LEVELS) - 1) + AXIS_GAP / 2
    x_of = {version: LEFT + index * step for index, version in enumerate(versions)}
    marks = [
        Mark(
            x=x_of[version],
            y=TOP + ROW * LEVELS.get(stability or "", 3),
            version=version,
            stability=stability or "none",
            label=LABELS.get(stability or "", "No stage"),
            title=title,
            from_claim=from_claim,
        )
        for version, stability, title, from_claim in appearances
        if version in x_of
    ]
    seen = {mark.version for mark in marks}
    return Timeline(
        width=width,
        height=height,
        axis_y=axis_y,
        ticks=[(x, version, version in seen) for version, x in x_of.items()],
        rows=[
            (TOP + ROW * level, LABELS[stage], stage or "none")
            for stage, level in LEVELS.items()
            if level < 3
        ],
        marks=marks,
        steps=[(a.x, a.y, b.x, b.y) for a, b in zip(marks, marks[1:], strict=False)],
    )

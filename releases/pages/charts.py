"""
Charts of the catalog's history as plain geometry for the pages' server-rendered SVG, drawn as
the track timeline is (releases.pages.timeline): a fixed size that a narrow screen scrolls sideways
rather than shrink its text, grid lines at round numbers, each mark carrying its number.

- ``columns``: one column per item (a release, a number of releases), its values stacked in
  the order of ``keys`` from the axis up (each release's features by stage);
- ``rows``: one bar per item, its name at the left (each track kept at one stage).

No Django here.
"""

import math
from dataclasses import dataclass

from releases.pages.fontmetrics import FONT_SIZE, text_width

LABEL_SIZE = 12  # px: the charts' text, as the timeline's
TOP, BOTTOM, RIGHT = 16, 36, 16


def scaled_width(text):
    """How wide ``text`` is at LABEL_SIZE (fontmetrics measures at its own FONT_SIZE)."""
    return text_width(text) * LABEL_SIZE / FONT_SIZE


def nice_step(highest, most=5):
    """A round step (1, 2 or 5 times a power of ten) giving at most ``most`` grid lines."""
    if highest <= 0:
        return 1
    raw = highest / most
    power = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return max(int(factor * power), 1)
    return int(10 * power)


@dataclass
class Segment:
    key: str
    value: int
    y: float
    height: float


@dataclass
class Column:
    x: float  # the column's centre
    left: float  # its bar's left edge
    label: str
    total: int
    top: float  # where its total is written
    segments: list
    title: str  # what the column says, in words


@dataclass
class ColumnChart:
    width: int
    height: int
    axis_x: float
    axis_y: float
    bar: int  # each column's width
    grid: list  # (y, value)
    columns: list


def columns(items, keys, describe, height=180, step=48, bar=30):
    """
    ``items``: (label, {key: value}) in the order they are drawn, left to right; each column
    stacks its values in the order of ``keys``, the first on the axis. ``describe(label,
    values)`` says what a column shows, in words (its tooltip).
    """
    highest = max((sum(values.get(key, 0) for key in keys) for _, values in items), default=0)
    grid_step = nice_step(highest)
    top_value = max(math.ceil(highest / grid_step), 1) * grid_step
    axis_x = 12 + scaled_width(str(top_value)) + 8
    axis_y = TOP + height
    per_unit = height / top_value
    drawn = []
    for index, (label, values) in enumerate(items):
        x = round(axis_x + step / 2 + index * step, 2)
        base, segments = axis_y, []
        for key in keys:
            value = values.get(key, 0)
            if value:
                size = round(value * per_unit, 2)
                base = round(base - size, 2)
                segments.append(Segment(key, value, base, size))
        total = sum(values.get(key, 0) for key in keys)
        title = describe(label, values)
        drawn.append(Column(x, x - bar / 2, label, total, base - 4, segments, title))
    grid = [
        (round(axis_y - value * per_unit, 2), value) for value in range(0, top_value + 1, grid_step)
    ]
    width = math.ceil(axis_x + step * max(len(items), 1) + RIGHT)
    return ColumnChart(
        width=width,
        height=axis_y + BOTTOM - 12,
        axis_x=round(axis_x, 2),
        axis_y=axis_y,
        bar=bar,
        grid=grid,
        columns=drawn,
    )


@dataclass
class Row:
    y: float  # the bar's top
    name: str  # as written, shortened to fit
    full_name: str
    value: int
    key: str
    length: float
    end: float  # where the bar ends, and its number is written
    href: str


@dataclass
class RowChart:
    width: int
    height: int
    axis_x: float
    row: int
    bar: int
    grid: list  # (x, value)
    rows: list


def shortened(text, room):
    """``text``, cut with an ellipsis to fit ``room`` pixels at LABEL_SIZE."""
    if scaled_width(text) <= room:
        return text
    while text and scaled_width(text + "…") > room:
        text = text[:-1]
    return text.rstrip() + "…"


def rows(items, width=640, name_room=220, row=24, bar=14):
    """``items``: (name, value, key, href) drawn top to bottom, names shortened to fit."""
    widest = max((scaled_width(name) for name, *_ in items), default=0)
    axis_x = round(min(widest, name_room) + 16, 2)
    highest = max((value for _, value, *_ in items), default=0)
    grid_step = nice_step(highest)
    top_value = max(math.ceil(highest / grid_step), 1) * grid_step
    room = width - axis_x - RIGHT - 24  # the bar's number is written after it
    per_unit = room / top_value
    drawn = [
        Row(
            y=TOP + index * row,
            name=shortened(name, name_room),
            full_name=name,
            value=value,
            key=key,
            length=round(value * per_unit, 2),
            end=round(axis_x + value * per_unit, 2),
            href=href,
        )
        for index, (name, value, key, href) in enumerate(items)
    ]
    grid = [
        (round(axis_x + value * per_unit, 2), value) for value in range(0, top_value + 1, grid_step)
    ]
    return RowChart(
        width=width,
        height=TOP + row * max(len(items), 1) + BOTTOM - 8,
        axis_x=axis_x,
        row=row,
        bar=bar,
        grid=grid,
        rows=drawn,
    )

"""
Status badges: "torch.fft | stable since 1.8" as a small SVG in the catalog's stage colours,
and the same facts as a shields.io endpoint (https://shields.io/badges/endpoint-badge), so that
docs can use shields' own styles.

The badge is drawn as shields.io draws its flat badges: two boxes, each as wide as its text
(measured with releases.pages.fontmetrics) plus padding, the text's width fixed with ``textLength``
so that no font of the stack can make it overflow. No Django here.
"""

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from releases.classification import NO_STAGE
from releases.pages.fontmetrics import FONT_FAMILY, FONT_SIZE, text_width

# The site's stage colours (site.css: --stable, --beta, --prototype, --unstable, --none), white
# text on each.
STAGE_COLOURS = {
    "stable": "#1b7f3b",
    "beta": "#8a5a00",
    "prototype": "#6b3fa0",
    "unstable": "#0b5f8a",
    NO_STAGE: "#5a6170",
}
STAGE_WORDS = {
    "stable": "stable",
    "beta": "beta",
    "prototype": "prototype",
    "unstable": "unstable",
    NO_STAGE: "no stage",
}
LABEL_COLOUR = "#3c4250"
UNKNOWN_COLOUR = "#767676"  # grey, with white text at 4.5:1
UNKNOWN_MESSAGE = "unknown"
HEIGHT, PADDING, BASELINE = 20, 6, 14


@dataclass(frozen=True)
class Badge:
    label: str
    message: str
    colour: str

    @property
    def text(self):
        """What the badge says, as one phrase: its title and its accessible name."""
        return f"{self.label}: {self.message}"


def track_badge(name, stage, since):
    """The badge of a track named ``name`` at ``stage`` ("" for none) since version ``since``."""
    stage = stage or NO_STAGE
    return Badge(name, f"{STAGE_WORDS[stage]} since {since}", STAGE_COLOURS[stage])


def unknown_badge(label):
    return Badge(label, UNKNOWN_MESSAGE, UNKNOWN_COLOUR)


@dataclass(frozen=True)
class Layout:
    width: float
    label_width: float
    message_width: float
    label_text_width: float
    message_text_width: float


def layout(badge):
    """Where each part goes: each box holds its text's measured width and PADDING either side."""
    label_text, message_text = text_width(badge.label), text_width(badge.message)
    label_width = round(label_text + 2 * PADDING, 2)
    message_width = round(message_text + 2 * PADDING, 2)
    return Layout(
        width=round(label_width + message_width, 2),
        label_width=label_width,
        message_width=message_width,
        label_text_width=label_text,
        message_text_width=message_text,
    )


def text(content, x, length, shadow=False):
    """One line of centred text, drawn exactly ``length`` wide (and its shadow, one px lower)."""
    y = BASELINE + 1 if shadow else BASELINE
    fill = ' fill="#010101" fill-opacity=".3" aria-hidden="true"' if shadow else ""
    return (
        f'<text x="{x:g}" y="{y}" textLength="{length:g}" lengthAdjust="spacingAndGlyphs"{fill}>'
        f"{escape(content)}</text>"
    )


def svg(badge):
    """The badge as an SVG document: an image whose accessible name says what it shows."""
    box = layout(badge)
    label_x = box.label_width / 2
    message_x = box.label_width + box.message_width / 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{box.width:g}" height="{HEIGHT}" '
        f'viewBox="0 0 {box.width:g} {HEIGHT}" role="img" aria-label={quoteattr(badge.text)}>',
        f"<title>{escape(badge.text)}</title>",
        '<clipPath id="r"><rect width="100%" height="100%" rx="3" fill="#fff"/></clipPath>',
        '<g clip-path="url(#r)">',
        f'<rect width="{box.label_width:g}" height="{HEIGHT}" fill="{LABEL_COLOUR}"/>',
        f'<rect x="{box.label_width:g}" width="{box.message_width:g}" height="{HEIGHT}" '
        f'fill="{badge.colour}"/>',
        "</g>",
        f'<g fill="#fff" text-anchor="middle" font-family="{FONT_FAMILY}" font-size="{FONT_SIZE}">',
        text(badge.label, label_x, box.label_text_width, shadow=True),
        text(badge.label, label_x, box.label_text_width),
        text(badge.message, message_x, box.message_text_width, shadow=True),
        text(badge.message, message_x, box.message_text_width),
        "</g>",
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def endpoint(badge):
    """The badge as shields.io's endpoint schema (version 1) has it."""
    return {
        "schemaVersion": 1,
        "label": badge.label,
        "message": badge.message,
        "color": badge.colour.lstrip("#"),
    }

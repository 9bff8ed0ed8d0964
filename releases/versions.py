"""
PyTorch version strings, parsed into parts that sort as versions.

Plain Python with no Django imports: the models, the API filters and the importer share it.
"1.10" sorts after "1.9", and a pre-release sorts before its final release
("2.0.0rc1" < "2.0.0"), as PEP 440 orders them.
"""

import re
from dataclasses import dataclass, field

# ASCII digits only: \d would take "١.٨" (Arabic-Indic) for 1.8.
VERSION_RE = re.compile(
    r"^v?(?P<major>[0-9]{1,3})\.(?P<minor>[0-9]{1,3})(?:\.(?P<micro>[0-9]{1,3}))?"
    r"(?:(?P<pre_label>a|b|rc)(?P<pre_number>[0-9]{1,3}))?\Z"
)

# A final release sorts after every pre-release of the same version.
PRE_RELEASE_RANKS = {"a": 0, "b": 1, "rc": 2, "": 3}
PRE_RELEASE_LABELS = {rank: label for label, rank in PRE_RELEASE_RANKS.items()}

VERSION_EXAMPLES = "1.9, 1.10, 2.0, 2.1.2 or 2.0.0rc1"


class InvalidVersion(ValueError):
    """The text is not a PyTorch version."""

    def __init__(self, text):
        super().__init__(f"'{text}' is not a version; expected one such as {VERSION_EXAMPLES}.")
        self.text = text


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    micro: int = 0
    pre_rank: int = PRE_RELEASE_RANKS[""]
    pre_number: int = 0
    # How it was written, normalized ("2.5", "2.5.0"): what str() gives; never compared.
    spelled: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text):
        """The version ``text`` spells (a Version already parsed is itself)."""
        if isinstance(text, cls):
            return text
        match = VERSION_RE.match((text or "").strip())
        if match is None:
            raise InvalidVersion(text)
        return cls(
            major=int(match["major"]),
            minor=int(match["minor"]),
            micro=int(match["micro"] or 0),
            pre_rank=PRE_RELEASE_RANKS[match["pre_label"] or ""],
            pre_number=int(match["pre_number"] or 0),
            spelled=match.group(0).removeprefix("v"),
        )

    def __str__(self):
        if self.spelled:
            return self.spelled
        label = PRE_RELEASE_LABELS[self.pre_rank]
        pre = f"{label}{self.pre_number}" if label else ""
        return f"{self.major}.{self.minor}.{self.micro}{pre}"

    @property
    def names_patch(self):
        """Whether it was written with its patch ("2.5.1", "2.5.0"), not as a minor ("2.5")."""
        return self.spelled.count(".") >= 2 if self.spelled else True

    @property
    def key(self):
        """One integer that sorts as the version does: what the database orders by."""
        return (
            ((self.major * 1000 + self.minor) * 1000 + self.micro) * 10 + self.pre_rank
        ) * 1000 + self.pre_number

    def as_dict(self):
        """The parts under the names the Release model stores them as."""
        values = (self.major, self.minor, self.micro, self.pre_rank, self.pre_number)
        return dict(zip(PART_FIELDS, values, strict=True))


# The names the Release model stores a version's parts under (Version.as_dict's keys).
PART_FIELDS = (
    "version_major",
    "version_minor",
    "version_micro",
    "version_pre_rank",
    "version_pre_number",
)


def normalize(text):
    """The canonical spelling of a version: no leading "v", no surrounding space."""
    text = (text or "").strip()
    Version.parse(text)
    return text[1:] if text.startswith("v") else text

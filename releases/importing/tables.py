"""
Reading PyTorch's compatibility tables: plain parsing, no database.

Three kinds of table are recognised by their header, in Markdown (markdown-it's tables, with
the line of every row) or HTML (Beautiful Soup's, with its source line):

- the release compatibility matrix: a row per minor release with its Python range (and the
  experimental builds in parentheses), C++ standard, stable and experimental CUDA (each with
  its cuDNN and NCCL where given) and ROCm;
- the CUDA architecture tables: a row per CUDA version with the architectures of one kind of
  build, for the releases the paragraph before the table names;
- the release cadence table: a row per minor release with its branch cut, release date and
  planned patches (a day or only a month; in parentheses, tentative);
- the version pairings: a row per torch version (patches too) with its date and the companion
  libraries' versions paired with it.

``read(text, kind)`` gives a ``Tables`` of what was read and, for every row it could not read,
a problem naming its line; it never guesses a value.
"""

import calendar
import datetime as dt
import re
from dataclasses import dataclass, field

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from releases import versions

STABLE, EXPERIMENTAL = "stable", "experimental"
LIBRARIES = ("torchvision", "torchaudio", "torchtext", "torchdata", "torchcodec")
NOTHING = {"", "none", "--", "-", "—", "–", "n/a", "not planned"}


@dataclass
class Table:
    header: list
    rows: list  # (line, cells)
    before: str = ""  # the paragraph just before the table
    line: int = 0


@dataclass
class Supported:
    kind: str
    version: str
    level: str = STABLE
    cudnn: str = ""
    nccl: str = ""
    detail: str = ""


@dataclass
class Platforms:
    release: str
    line: int
    supports: list = field(default_factory=list)


@dataclass
class Planned:
    kind: str  # branch_cut, release, patch
    number: int
    date: dt.date
    precision: str  # day, month
    tentative: bool


@dataclass
class Schedule:
    release: str
    line: int
    dates: list = field(default_factory=list)


@dataclass
class Pairing:
    torch_version: str
    line: int
    release_date: object = None  # a date, or None where the table gives none
    companions: dict = field(default_factory=dict)  # library -> version


@dataclass
class Tables:
    platforms: list = field(default_factory=list)
    architectures: list = field(default_factory=list)  # Platforms of cuda_arch supports
    schedule: list = field(default_factory=list)
    pairings: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # (line, message)

    def is_empty(self):
        return not (self.platforms or self.architectures or self.schedule or self.pairings)


# --- tables out of documents ---------------------------------------------------------------------


def markdown_tables(text):
    """Every table of a Markdown document, each row with its 1-based line."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables, paragraph = [], ""
    row, line, table, in_head = None, 0, None, False
    for token in tokens:
        if token.type == "inline" and table is None:
            paragraph = token.content
        elif token.type == "table_open":
            table = Table(header=[], rows=[], before=paragraph, line=token.map[0] + 1)
        elif token.type == "thead_open":
            in_head = True
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row, line = [], token.map[0] + 1
        elif token.type == "inline" and row is not None:
            row.append(plain(token.content))
        elif token.type == "tr_close":
            if in_head:
                table.header = row
            else:
                table.rows.append((line, row))
            row = None
        elif token.type == "table_close":
            tables.append(table)  # a table right after it shares its paragraph
            table = None
    return tables


def html_tables(text):
    """Every table of an HTML document (or of HTML inside Markdown), rows with their lines."""
    soup = BeautifulSoup(text, "html.parser")
    tables = []
    for element in soup.find_all("table"):
        rows = element.find_all("tr")
        if not rows:
            continue
        header = [plain(cell.get_text(" ")) for cell in rows[0].find_all(["th", "td"])]
        body = [
            (row.sourceline, [plain(cell.get_text(" ")) for cell in row.find_all(["th", "td"])])
            for row in rows[1:]
        ]
        previous = element.find_previous(["p", "h1", "h2", "h3", "h4"])
        before = plain(previous.get_text(" ")) if previous else ""
        tables.append(Table(header=header, rows=body, before=before, line=element.sourceline))
    return tables


def plain(text):
    """A cell's text: Markdown's code and emphasis marks gone, spaces collapsed."""
    return " ".join(re.sub(r"[`*]", "", text).split())


# --- reading ------------------------------------------------------------------------------------


def read(text):
    """What the tables of ``text`` (Markdown, or HTML) say; unreadable rows as problems."""
    tables = markdown_tables(text) + (html_tables(text) if "<table" in text.lower() else [])
    found = Tables()
    for table in tables:
        reader = reader_of(table.header)
        if reader is not None:
            reader(table, found)
    return found


def reader_of(header):
    """The reader of a table with ``header``, or None for a table of another kind."""
    names = [name.lower() for name in header]
    if not names:
        return None
    if names[0].startswith("pytorch version") and any("cuda" in name for name in names):
        return read_matrix
    if names[0] == "cuda" and len(names) > 1 and names[1].startswith("architectures"):
        return read_architectures
    if any("branch cut" in name for name in names):
        return read_cadence
    if any(name in LIBRARIES for name in names) and ("torch" in names[0] or "pytorch" in names[0]):
        return read_pairings
    return None


# More rows than any table of PyTorch's releases will hold for decades: a table past it is
# refused whole, as what no release table is.
MAX_TABLE_ROWS = 2000


def each_row(table, found, read_row):
    """
    ``read_row(line, cells)`` for every row; a ValueError it raises becomes a problem. A row
    that repeats an earlier one cell for cell is a problem, read once; a table of more than
    MAX_TABLE_ROWS rows is one problem, and none of its rows is read.
    """
    if len(table.rows) > MAX_TABLE_ROWS:
        found.problems.append(
            (
                table.line,
                f"a table of {len(table.rows):,} rows: more than {MAX_TABLE_ROWS:,}, "
                "which no table of releases holds; not read",
            )
        )
        return
    seen = {}
    for line, cells in table.rows:
        if not any(cells):
            continue
        first = seen.setdefault(tuple(cells), line)
        if first != line:
            found.problems.append((line, f"repeats the row on line {first}: read once"))
            continue
        try:
            read_row(line, cells)
        except ValueError as error:
            found.problems.append((line, str(error)))


def minor_version(text):
    """A minor release's version as a table's first column gives it: 2.14, not 2.14.1."""
    version = versions.Version.parse(text.strip())  # InvalidVersion is a ValueError
    if version.micro or version.pre_rank != 3 or text.strip().count(".") > 1:
        raise ValueError(f"{text!r} is not a minor release's version (such as 2.5)")
    return f"{version.major}.{version.minor}"


# --- the compatibility matrix ------------------------------------------------------------------


def read_matrix(table, found):
    columns = [name.lower() for name in table.header]

    def column(*words):
        return next((i for i, name in enumerate(columns) if all(w in name for w in words)), None)

    where = {
        "python": column("python"),
        "cxx": column("c++"),
        "stable_cuda": column("stable", "cuda"),
        "experimental_cuda": column("experimental", "cuda"),
        "rocm": column("rocm"),
    }

    def read_row(line, cells):
        if len(cells) < len(columns):
            raise ValueError(f"the row has {len(cells)} cells where the header has {len(columns)}")
        row = Platforms(release=minor_version(cells[0]), line=line)
        if where["python"] is not None:
            row.supports += python_range(cells[where["python"]])
        if where["cxx"] is not None:
            row.supports += cxx_standard(cells[where["cxx"]])
        for name, level in (("stable_cuda", STABLE), ("experimental_cuda", EXPERIMENTAL)):
            if where[name] is not None:
                row.supports += cuda_versions(cells[where[name]], level)
        if where["rocm"] is not None:
            row.supports += rocm_versions(cells[where["rocm"]])
        found.platforms.append(row)

    each_row(table, found, read_row)


PY_VERSION = r"3\.[0-9]{1,2}t?"


def python_range(cell):
    """'>=3.10, <=(3.14, 3.14t experimental)': 3.10 to 3.14 stable, 3.14t experimental."""
    low = re.search(rf">=\s*({PY_VERSION})", cell)
    high = re.search(rf"<=\s*\(?\s*({PY_VERSION})", cell)
    if not (low and high):
        raise ValueError(f"the Python cell {cell!r} gives no range (>=3.x, <=3.y)")
    first, last = (int(match.group(1).split(".")[1].rstrip("t")) for match in (low, high))
    if first > last:
        raise ValueError(f"the Python cell {cell!r} ends before it starts")
    supports = [Supported("python", f"3.{minor}") for minor in range(first, last + 1)]
    for version in re.findall(rf"({PY_VERSION})\s+experimental", cell):
        supports.append(Supported("python", version, EXPERIMENTAL))
    return supports


def cxx_standard(cell):
    if cell.strip().lower() in NOTHING:
        return []
    match = re.fullmatch(r"C\+\+\s*([0-9]{2})", cell.strip())
    if not match:
        raise ValueError(f"the C++ cell {cell!r} names no standard (such as C++17)")
    return [Supported("cxx", f"C++{match.group(1)}")]


CUDA_ENTRY = re.compile(r"CUDA\s+([0-9]+(?:\.[0-9]+)*)\s*((?:\([^)]*\)\s*)*)", re.IGNORECASE)
CUDNN = re.compile(r"CUDNN\s+([0-9]+(?:\.[0-9]+)*)", re.IGNORECASE)
NCCL = re.compile(r"NCCL\s+([0-9]+(?:\.[0-9]+)*)", re.IGNORECASE)


def cuda_versions(cell, level):
    """
    'CUDA 12.6 (CUDNN 9.10.2.21) (NCCL 2.27.5), CUDA 12.8 (...)', or 'CUDA 11.8, CUDA 12.1,
    CUDNN 9.1.0.70' (a cuDNN after the list is that of the versions that give none).
    """
    if cell.strip().lower() in NOTHING:
        return []
    entries, rest = [], CUDA_ENTRY.sub(" ", cell)
    for match in CUDA_ENTRY.finditer(cell):
        notes = match.group(2)
        cudnn, nccl = CUDNN.search(notes), NCCL.search(notes)
        entries.append(
            Supported(
                "cuda",
                match.group(1),
                level,
                cudnn=cudnn.group(1) if cudnn else "",
                nccl=nccl.group(1) if nccl else "",
            )
        )
    if not entries:
        raise ValueError(f"the CUDA cell {cell!r} names no CUDA version")
    shared = CUDNN.search(rest)
    if shared:
        for entry in entries:
            entry.cudnn = entry.cudnn or shared.group(1)
    leftover = CUDNN.sub(" ", rest).replace(",", " ").strip()
    if leftover:
        raise ValueError(f"the CUDA cell {cell!r} holds {leftover!r}, which is not a version")
    return entries


def rocm_versions(cell):
    if cell.strip().lower() in NOTHING:
        return []
    found = re.findall(r"ROCm\s+([0-9]+(?:\.[0-9]+)*)", cell, re.IGNORECASE)
    if not found:
        raise ValueError(f"the ROCm cell {cell!r} names no ROCm version")
    return [Supported("rocm", version) for version in found]


def listed_versions(cell, kind):
    """'13.2; 13.0; 12.6' (or with commas): versions of ``kind``, their level not given."""
    if cell.strip().lower() in NOTHING or cell.strip() in ("—", "–"):
        return []
    found = [part.strip() for part in re.split(r"[;,]", cell) if part.strip()]
    for version in found:
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)*", version):
            raise ValueError(f"the {kind} cell {cell!r} holds {version!r}, which is not a version")
    return [Supported(kind, version, level="") for version in found]


# --- the CUDA architectures ----------------------------------------------------------------------

ARCHITECTURE = re.compile(r"([A-Za-z][A-Za-z ]*?)\s*\(([^)]*)\)")


def read_architectures(table, found):
    """Merged per release: one cuda_arch support per architecture, what has it in detail."""
    releases = re.findall(r"\b([0-9]+\.[0-9]+)\b", table.before)
    builds = re.sub(r"^architectures supported for\s*", "", table.header[1], flags=re.I)
    builds = re.sub(r"\s*builds?$", "", builds)
    if not releases:
        found.problems.append(
            (table.line, "a CUDA architecture table with no release named before it")
        )
        return
    merged = {}  # arch -> (name, [cuda versions])

    def read_row(line, cells):
        cuda = cells[0].strip()
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)*", cuda):
            raise ValueError(f"{cuda!r} is not a CUDA version")
        pairs = ARCHITECTURE.findall(cells[1])
        if not pairs:
            raise ValueError(f"the architectures cell {cells[1]!r} names none")
        for name, numbers in pairs:
            for number in numbers.split(","):
                arch = number.strip().removesuffix("+PTX")
                if not re.fullmatch(r"[0-9]+\.[0-9]+", arch):
                    raise ValueError(f"{number.strip()!r} is not an architecture (such as 9.0)")
                merged.setdefault(arch, (name.strip(), line, []))[2].append(cuda)

    each_row(table, found, read_row)
    for release in releases:
        row = Platforms(release=minor_version(release), line=table.line)
        for arch, (name, _, cudas) in sorted(merged.items(), key=lambda item: float(item[0])):
            detail = f"{name}; {builds}: CUDA {', '.join(cudas)}"
            row.supports.append(Supported("cuda_arch", arch, detail=detail))
        found.architectures.append(row)


# --- the release cadence -------------------------------------------------------------------------

MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_abbr) if name}
DATE_CELL = re.compile(r"(?:([0-9]{1,2})\s+)?([A-Za-z]{3,9})\.?,?\s+([0-9]{4})")


def schedule_date(cell):
    """'16 Feb 2026', 'Sept 2025', '(Aug 2026)' (tentative), or None for 'Not planned'."""
    text = cell.strip()
    if text.lower() in NOTHING:
        return None
    tentative = text.startswith("(") and text.endswith(")")
    match = DATE_CELL.fullmatch(text.strip("() "))
    month = MONTHS.get(match.group(2)[:3].lower()) if match else None
    if month is None:
        raise ValueError(f"{cell!r} is not a date (such as 16 Feb 2026 or Aug 2026)")
    day, year = match.group(1), int(match.group(3))
    try:
        date = dt.date(year, month, int(day or 1))
    except ValueError:
        raise ValueError(f"{cell!r} is not a day of the calendar") from None
    return date, ("day" if day else "month"), tentative


def read_cadence(table, found):
    columns = [name.lower() for name in table.header]
    kinds = []
    for name in columns[1:]:
        if "branch cut" in name:
            kinds.append(("branch_cut", 0))
        elif "patch" in name:
            kinds.append(("patch", 1 + sum(kind == "patch" for kind, _ in kinds)))
        elif "release" in name:
            kinds.append(("release", 0))
        else:
            kinds.append((None, 0))

    def read_row(line, cells):
        row = Schedule(release=minor_version(cells[0]), line=line)
        for (kind, number), cell in zip(kinds, cells[1:], strict=False):
            date = schedule_date(cell) if kind else None
            if date:
                row.dates.append(Planned(kind, number, *date))
        found.schedule.append(row)

    each_row(table, found, read_row)


# --- the version pairings ------------------------------------------------------------------------

ISO_OR_WRITTEN = re.compile(r"([0-9]{4})[-./]([0-9]{1,2})[-./]([0-9]{1,2})")


def pairing_date(cell):
    """2024-06-05 (or 2024.06.05, 2024/06/05; a written '5 Jun 2024' too), or None."""
    text = cell.strip()
    if text.lower() in NOTHING:
        return None
    match = ISO_OR_WRITTEN.search(text)
    if match:
        return dt.date(*(int(part) for part in match.groups()))
    written = schedule_date(text)
    if written and written[1] == "day":
        return written[0]
    raise ValueError(f"{cell!r} is not a day (such as 2024-06-05)")


def read_pairings(table, found):
    columns = [name.lower() for name in table.header]
    libraries = {i: name for i, name in enumerate(columns) if name in LIBRARIES}
    dated = next((i for i, name in enumerate(columns) if "date" in name), None)
    # What a pairing table may also say of each minor release (on its X.Y.0 row): the Python
    # range, and CUDA and ROCm versions without saying which are stable.
    platform_columns = {
        i: name for i, name in enumerate(columns) if name in ("python", "cuda", "rocm")
    }

    def read_row(line, cells):
        torch = cells[0].strip().removeprefix("v")
        versions.Version.parse(torch)  # an InvalidVersion (a ValueError) names the cell
        row = Pairing(torch_version=torch, line=line)
        if dated is not None and dated < len(cells):
            try:
                row.release_date = pairing_date(cells[dated])
            except ValueError as error:
                raise ValueError(f"{error} (torch {torch})") from None
        for i, library in libraries.items():
            cell = cells[i].strip() if i < len(cells) else ""
            if cell.lower() in NOTHING:
                continue
            if not re.fullmatch(r"v?[0-9]+(\.[0-9]+){1,2}", cell):
                raise ValueError(f"{library} {cell!r} is not a version (torch {torch})")
            row.companions[library] = cell.removeprefix("v")
        found.pairings.append(row)
        version = versions.Version.parse(torch)
        if platform_columns and not version.micro:
            platforms = Platforms(release=f"{version.major}.{version.minor}", line=line)
            for i, name in platform_columns.items():
                cell = cells[i] if i < len(cells) else ""
                if name == "python":
                    if cell.strip().lower() not in NOTHING:
                        platforms.supports += python_range(cell)
                else:
                    platforms.supports += listed_versions(cell, name)
            found.platforms.append(platforms)

    each_row(table, found, read_row)

"""
Map a release's notes (releases.importing.notes) onto the catalog's upgrade notes, as drafts for
editors to curate.

Editors own what they curate, so an import only adds. Each entry is named within its release
by its first pull request (``pr-163134``; a second entry citing the same one is
``pr-163134-2``; an entry citing none by its line, ``line-343``). An entry the release lacks
comes in waiting for review (``needs_review``, with no summary: an editor writes it), with the
APIs its text puts in code spans, its source and its line. An entry the release already has is
compared, not written: a different kind, area or set of pull requests is reported for an editor
to decide. An entry an editor deleted stays deleted. A second import of the same file changes
nothing.

``plan()`` reads the catalog and validates every row it would write; ``Plan.apply()`` writes
them in one transaction through the catalog's write path, recorded as made by
``import_release_notes`` and the source.
"""

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction

from releases import writes
from releases.importing.problems import DocumentProblem
from releases.importing.validation import validate as checked
from releases.models import UpgradeAPI, UpgradeKind, UpgradeNote
from releases.slugs import unique_slug

MAX_API_LENGTH = UpgradeAPI._meta.get_field("name").max_length
MAX_PULL_REQUEST = 10**8


class NotesProblem(DocumentProblem):
    """Release notes that cannot be imported, or an entry of them."""


@dataclass
class Plan:
    release: object
    source: str  # the file or URL, as given
    creations: list = field(default_factory=list)  # (entry, note, [api names])
    held: list = field(default_factory=list)  # (entry, note) already in the catalog
    differences: list = field(default_factory=list)  # (entry, what differs)
    deleted: list = field(default_factory=list)  # entries an editor deleted: kept deleted
    warnings: list = field(default_factory=list)  # (line, message): what was read with doubt

    def lines(self):
        """What the import would do, a line each, in the file's order."""
        shown = [
            (e.line, f"add {e.kind} {note.slug} ({e.area or 'no area'}; {len(apis)} API(s))")
            for e, note, apis in self.creations
        ]
        shown += [(e.line, f"differs, kept as is: {text}") for e, text in self.differences]
        shown += [
            (e.line, f"deleted by an editor, kept deleted: {slug}") for e, slug in self.deleted
        ]
        return [f"line {line}: {text}" for line, text in sorted(shown, key=lambda s: s[0])]

    def table(self):
        """The summary table: per kind, how many entries were read, added, held and differ."""
        counts = {kind: Counter() for kind in UpgradeKind.values}
        for entry, _, _ in self.creations:
            counts[entry.kind]["new"] += 1
        for entry, _ in self.held:
            counts[entry.kind]["held"] += 1
        for entry, _ in self.differences:
            counts[entry.kind]["differ"] += 1
        for entry, _ in self.deleted:
            counts[entry.kind]["deleted"] += 1
        header = f"{'kind':<12} {'read':>5} {'new':>5} {'held':>5} {'differ':>7} {'deleted':>8}"
        rows = [header]
        total = Counter()
        for kind, count in counts.items():
            count["read"] = count["new"] + count["held"] + count["deleted"]
            total.update(count)
            rows.append(row(kind, count))
        rows.append(row("total", total))
        return rows

    def apply(self):
        if not self.creations:
            return
        with writes.acting_as(f"import_release_notes {self.source}"), transaction.atomic():
            for _, note, apis in self.creations:
                note.save()
                UpgradeAPI.objects.bulk_create(
                    UpgradeAPI(note=note, name=name, position=n) for n, name in enumerate(apis)
                )


def row(label, count):
    return (
        f"{label:<12} {count['read']:>5} {count['new']:>5} {count['held']:>5} "
        f"{count['differ']:>7} {count['deleted']:>8}"
    )


def slugs_of(entries):
    """{entry line: slug} for the entries of one file, each unique within it."""
    taken, found = set(), {}
    for entry in entries:
        base = f"pr-{entry.prs[0]}" if entry.prs else f"line-{entry.line}"
        slug = unique_slug(base, taken)
        taken.add(slug)
        found[entry.line] = slug
    return found


def api_names(entry):
    """The APIs of an entry that fit a row, without repeats; the rest are warnings."""
    names, skipped = [], []
    for name in entry.apis:
        if len(name.lower()) > MAX_API_LENGTH or "\n" in name:
            skipped.append(name)
        elif name not in names:
            names.append(name)
    return names, skipped


def plan(notes, release, source, source_url=""):
    """The Plan of importing ``notes`` (a ReleaseNotes) into ``release``, read from ``source``."""
    if not notes.entries:
        line, message = notes.problems[0] if notes.problems else (None, "no entries found")
        raise NotesProblem(message, line)
    planning = Plan(release=release, source=source, warnings=list(notes.problems))
    held = {note.slug: note for note in release.upgrade_notes.all()}
    once_held = set(
        UpgradeNote.history.filter(release_id=release.pk).values_list("slug", flat=True)
    )
    slugs = slugs_of(notes.entries)
    for entry in notes.entries:
        slug = slugs[entry.line]
        if slug in held:
            compare(entry, held[slug], planning)
        elif slug in once_held:
            planning.deleted.append((entry, slug))
        else:
            names, skipped = api_names(entry)
            for name in skipped:
                planning.warnings.append((entry.line, f"API name too long to keep: {name[:60]}"))
            numbers = [n for n in entry.prs if 0 < n < MAX_PULL_REQUEST]
            for number in sorted(set(entry.prs) - set(numbers)):
                planning.warnings.append((entry.line, f"#{number} is no pull request: left out"))
            note = UpgradeNote(
                release=release,
                slug=slug,
                kind=entry.kind,
                area=entry.area[:100],
                group=entry.group[:200],
                section=entry.section[:100],
                replacement=entry.replacement[:300],
                removed_in=entry.removed_in,
                pull_requests=numbers,
                source_url=source_url,
                source_line=entry.line,
                needs_review=True,
            )
            validate(note, entry.line)
            planning.creations.append((entry, note, names))
    return planning


def compare(entry, note, planning):
    planning.held.append((entry, note))
    differs = []
    if note.kind != entry.kind:
        differs.append(f"kind {note.kind} (the notes: {entry.kind})")
    if note.area != entry.area and not (note.area_reason and not entry.area):
        differs.append(f"area {note.area!r} (the notes: {entry.area!r})")
    if sorted(note.pull_requests) != sorted(entry.prs):
        differs.append(f"pull requests {note.pull_requests} (the notes: {entry.prs})")
    if differs:
        planning.differences.append((entry, f"{note.slug}: " + "; ".join(differs)))


def validate(note, line):
    checked(note, line, NotesProblem, lambda _: "the entry", exclude=["release"])

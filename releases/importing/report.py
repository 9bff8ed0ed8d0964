"""
What an import did or would do, counted and listed: the report import_post prints and the
admin shows.
"""

from dataclasses import dataclass, field


@dataclass
class ImportReport:
    version: str
    release_created: bool = False
    published: bool = False
    published_now: bool = False
    dated: object = None
    created: list = field(default_factory=list)
    updated: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    awaiting_approval: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    not_in_post: list = field(default_factory=list)
    links: int = 0
    links_created: int = 0
    missing_links: int = 0
    new_areas: list = field(default_factory=list)
    release_changes: list = field(default_factory=list)
    left_out: list = field(default_factory=list)
    claims: int = 0  # stage claims in the post's prose
    claims_created: list = field(default_factory=list)
    claims_to_review: int = 0  # of those created, the ones an editor must decide
    sources_recorded: int = 0  # features, links and claims whose provenance was (re)written

    @property
    def changed_anything(self):
        return bool(
            self.release_created
            or self.release_changes
            or self.created
            or self.updated
            or self.links_created
            or self.claims_created
            or self.sources_recorded
        )

    @property
    def sections(self):
        """The report's lists, titled, for a page to show as tables."""
        return [
            ("Features to create", self.created),
            ("Features to change", self.updated),
            ("New features that will await approval", self.awaiting_approval),
            ("Stage claims found in the prose", self.claims_created),
            ("Editors' changes kept (the post says otherwise)", self.kept),
            ("Links left out", self.left_out),
            ("New areas for editors to review", self.new_areas),
            ("In the catalog but not in the post (left as they are)", self.not_in_post),
        ]

    def lines(self):
        if self.release_created:
            state = "created (published)" if self.published else "created (draft)"
        elif self.published_now:
            state = "existing, published now"
        else:
            state = f"existing ({'published' if self.published else 'draft'})"
        lines = [f"Release {self.version}: {state}"]
        if self.dated:
            lines.append(f"Release date: {self.dated.isoformat()}")
        if self.release_changes and not self.release_created:
            lines.append(
                f"Release fields filled in from the post: {', '.join(self.release_changes)}"
            )
        lines += [
            f"Features: {len(self.created)} created, {len(self.updated)} updated, "
            f"{len(self.unchanged)} unchanged",
            f"Links: {self.links} in the post, {self.links_created} created, "
            f"{self.missing_links} missing (no URL yet)",
        ]
        if self.sources_recorded:
            lines.append(
                f"Sources recorded (post, section, line): {self.sources_recorded} features, "
                "links or claims already held"
            )
        lines += [f"  + {item}" for item in self.created]
        lines += [f"  ~ {item}" for item in self.updated]
        if self.claims:
            lines.append(
                f"Stage claims in the prose: {self.claims} found, {len(self.claims_created)} "
                f"new, {self.claims_to_review} awaiting an editor's review"
            )
            lines += [f"  * {item}" for item in self.claims_created]
        if self.awaiting_approval:
            lines.append(
                f"{len(self.awaiting_approval)} new feature(s) await an editor's approval: the "
                "release is already published, so they stay out of the public API until then"
            )
        if self.left_out:
            lines.append(f"Links left out ({len(self.left_out)}; the rest of the post imports):")
            lines += [f"  ! {item}" for item in self.left_out]
        if self.new_areas:
            lines.append(f"New areas for editors to review: {', '.join(self.new_areas)}")
        if self.kept:
            lines.append("Kept editors' changes (the post says otherwise):")
            lines += [f"  = {item}" for item in self.kept]
        if self.not_in_post:
            lines.append("In the catalog but not in the post (left as they are):")
            lines += [f"  ? {item}" for item in self.not_in_post]
        return lines

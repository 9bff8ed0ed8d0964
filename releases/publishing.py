"""
Publishing a release: what it still lacks, and the one way it becomes public or goes back to
draft. Only a missing release date refuses publishing (the database holds that rule too);
the rest of the checklist — a summary, areas to review, stage claims to decide, missing links,
features without a summary — is shown, not enforced: editors publish on the day and finish
later. Each change is recorded in the history by the write path, with the editor's name.
"""

from dataclasses import dataclass

from django.db import transaction

from releases.models import Release


@dataclass(frozen=True)
class Check:
    key: str  # what it is about (the admin links each to the list where it is done)
    label: str
    done: bool
    blocks: bool = False  # publishing is refused while it is not done
    url: str = ""  # where to do it: the admin's to say (releases.admin.releases.checklist)

    @property
    def state(self):
        return "done" if self.done else ("refused" if self.blocks else "to do")


def checklist(release):
    """What publishing ``release`` (annotated ``with_checklist()``) would leave undone."""
    return [
        Check("release_date", "A release date", release.release_date is not None, blocks=True),
        Check("summary", "A summary in our own words", bool(release.summary)),
        Check(
            "areas",
            plural(release.review_area_count, "area awaiting review", "areas awaiting review"),
            release.review_area_count == 0,
        ),
        Check(
            "claims",
            plural(release.pending_claim_count, "stage claim to decide", "stage claims to decide"),
            release.pending_claim_count == 0,
        ),
        Check(
            "links",
            plural(release.missing_link_count, "missing link", "missing links"),
            release.missing_link_count == 0,
        ),
        Check(
            "summaries",
            plural(
                release.unsummarized_count,
                "feature without a summary",
                "features without a summary",
            ),
            release.unsummarized_count == 0,
        ),
    ]


def plural(count, one, many):
    return f"No {many}" if count == 0 else f"{count} {one if count == 1 else many}"


def can_publish(release):
    return all(check.done for check in checklist(release) if check.blocks)


def publish(releases):
    """Publish those of ``releases`` that may be; return (published, refused)."""
    ready = [release for release in releases if can_publish(release)]
    refused = [release for release in releases if not can_publish(release)]
    with transaction.atomic():
        Release.objects.filter(pk__in=[r.pk for r in ready], is_published=False).update(
            is_published=True
        )
    return ready, refused


def unpublish(releases):
    """Take ``releases`` back to draft: the public API stops showing them at once."""
    with transaction.atomic():
        return Release.objects.filter(pk__in=[r.pk for r in releases], is_published=True).update(
            is_published=False
        )

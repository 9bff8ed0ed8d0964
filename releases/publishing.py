"""
Publishing a release: what it still lacks, and the one way it becomes public or goes back to
draft. Only a missing release date refuses publishing (the database holds that rule too);
the rest of the checklist — a summary, areas to review, stage claims to decide, missing links,
features without a summary — is shown, not enforced: editors publish on the day and finish
later. Each change is recorded in the history by the write path, with the editor's name.
"""

from dataclasses import dataclass

from django.db import transaction
from django.urls import reverse

from releases.models import Release


@dataclass
class Check:
    label: str
    done: bool
    blocks: bool = False  # publishing is refused while it is not done
    url: str = ""  # where to do it

    @property
    def state(self):
        return "done" if self.done else ("refused" if self.blocks else "to do")


def checklist(release):
    """What publishing ``release`` (annotated ``with_checklist()``) would leave undone."""
    links = reverse("admin:releases_link_changelist")
    features = reverse("admin:releases_feature_changelist")
    change = reverse("admin:releases_release_change", args=[release.pk])
    return [
        Check("A release date", release.release_date is not None, blocks=True, url=change),
        Check("A summary in our own words", bool(release.summary), url=change),
        Check(
            plural(release.review_area_count, "area awaiting review", "areas awaiting review"),
            release.review_area_count == 0,
            url=reverse("admin:releases_area_changelist") + "?needs_review__exact=1",
        ),
        Check(
            plural(release.pending_claim_count, "stage claim to decide", "stage claims to decide"),
            release.pending_claim_count == 0,
            url=reverse("admin:releases_stageclaim_changelist")
            + f"?status__exact=pending&release__id__exact={release.pk}",
        ),
        Check(
            plural(release.missing_link_count, "missing link", "missing links"),
            release.missing_link_count == 0,
            url=f"{links}?is_missing=yes&feature__release__id__exact={release.pk}",
        ),
        Check(
            plural(
                release.unsummarized_count,
                "feature without a summary",
                "features without a summary",
            ),
            release.unsummarized_count == 0,
            url=f"{features}?missing=summary&release__id__exact={release.pk}",
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

"""
Read rules of upgrade notes (releases.models.upgrades): which the public sees, which lie
between two versions, which name an API, and what became of a deprecation.
"""

from django.db import connections, models
from django.db.models import Exists, OuterRef, Prefetch, Q, Subquery

from releases import versions
from releases.declarations import model
from releases.managers.catalog import CatalogQuerySet, count_of


def api_prefix(prefix, using, field="name_key"):
    """
    A Q object: the API's name begins with ``prefix``, in any case, as the index of ``field``
    (the name in lower case) serves it on database ``using``: on SQLite, whose text compares
    by code point, a range; on PostgreSQL a LIKE, which its pattern index serves whatever the
    collation (where a range would not be a prefix).
    """
    folded = prefix.lower()
    if connections[using].vendor == "sqlite":
        return Q(**{f"{field}__gte": folded, f"{field}__lt": folded + "\U0010ffff"})
    return Q(**{f"{field}__startswith": folded})


def visible(path=""):
    """A Q object: the note at ``path`` is reviewed, of a published release, and about a track
    the public may see (or none)."""
    tracks = model("Track").objects.published()
    return Q(**{f"{path}release__is_published": True, f"{path}needs_review": False}) & (
        Q(**{f"{path}track__isnull": True}) | Q(**{f"{path}track__in": tracks})
    )


class UpgradeNoteQuerySet(CatalogQuerySet):
    def published(self):
        """
        Notes the public may see: reviewed, in a published release, about a track the public
        may see (or none), completing a deprecation the public may see by the same rule (or
        none).
        """
        return self.filter(visible(), Q(removes__isnull=True) | visible("removes__"))

    def for_api(self):
        """Published notes in checklist order, with what each shows: three queries a page."""
        apis = model("UpgradeAPI").objects.order_by("position", "name")
        return (
            self.published()
            .select_related("release", "track", "removes__release")
            .prefetch_related(Prefetch("apis", apis))
            .with_removal()
            .checklist_order()
        )

    def checklist_order(self):
        """Newest concerns last, as a person upgrading reads them: by release, kind, area."""
        return self.order_by("release_version_key", "kind_rank", "area_slug", "line_key", "slug")

    def newest_first(self):
        """The newest release's notes first (/deprecations/: what is deprecated now leads);
        the kind index (kind, release_version_key) serves it, read backwards."""
        return self.order_by("-release_version_key", "kind_rank", "area_slug", "line_key", "slug")

    def naming(self, prefix):
        """
        The notes naming an API that begins with ``prefix`` (torch.onnx finds the exporter),
        and the notes of the capability it names: a track called ``prefix`` (TorchScript), or
        one whose notes name such an API (torch.jit finds TorchScript's notes that name none).
        """
        apis = model("UpgradeAPI").objects.using(self.db).starting_with(prefix)
        tracks = (
            model("Track")
            .objects.using(self.db)
            .filter(Q(name__iexact=prefix) | Q(upgrade_notes__apis__in=apis))
        )
        return self.filter(Q(pk__in=apis.values("note_id")) | Q(track__in=tracks.values("pk")))

    def deprecations(self):
        """What a release deprecated: the notes of that kind that ask something of a user."""
        return self.filter(kind="deprecation", asks_nothing=False)

    def with_removal(self):
        """
        Annotate ``removal_version``: the published release whose note removed this one (a
        deprecation), or None while none has.
        """
        removals = (
            self.model.objects.published()
            .filter(removes=OuterRef("pk"))
            .order_by("release_version_key")
        )
        return self.annotate(
            removal_version=Subquery(removals.values("release__version")[:1]),
            removal_version_key=Subquery(removals.values("release_version_key")[:1]),
        )

    def still_present_in(self, version):
        """Deprecated at or before ``version`` and not removed by then: still there to use."""
        key = versions.Version.parse(version).key
        removed = self.model.objects.published().filter(
            removes=OuterRef("pk"), release_version_key__lte=key
        )
        return self.filter(release_version_key__lte=key).exclude(Exists(removed))


# The name of each kind's count on a release (upgrading_annotations).
KIND_COUNTS = {"bc-breaking": "breaking_count", "removal": "removal_count"}
KIND_COUNTS["deprecation"] = "deprecation_count"


def previous_release():
    """An annotation of a Release: the version of the release out before it, or None."""
    earlier = (
        model("Release")
        .objects.released()
        .filter(version_key__lt=OuterRef("version_key"))
        .order_by("-version_key")
    )
    return Subquery(earlier.values("version")[:1])


def upgrading_annotations():
    """
    What a release's page says of upgrading to it, as annotations of a Release query (no query
    of its own): ``previous_version``, the release out before it, and how many of its
    published notes there are of each kind (``breaking_count``, ``removal_count``,
    ``deprecation_count``).
    """
    notes = model("UpgradeNote").objects.published().filter(release=OuterRef("pk"))
    return {
        "previous_version": previous_release(),
        **{name: count_of(notes.filter(kind=kind)) for kind, name in KIND_COUNTS.items()},
    }


class UpgradeNoteManager(models.Manager.from_queryset(UpgradeNoteQuerySet)):
    def get_by_natural_key(self, version, slug):
        return self.get(release__version=version, slug=slug)


class UpgradeAPIQuerySet(CatalogQuerySet):
    def published(self):
        return self.filter(note__in=model("UpgradeNote").objects.published())

    def starting_with(self, prefix):
        return self.filter(api_prefix(prefix, self.db))


class UpgradeAPIManager(models.Manager.from_queryset(UpgradeAPIQuerySet)):
    def get_by_natural_key(self, version, slug, name):
        return self.get(note__release__version=version, note__slug=slug, name=name)

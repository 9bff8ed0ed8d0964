"""Which area a post's heading names: by the area's name or one of its aliases."""

from releases.models import Area
from releases.slugs import slugify, unique_slug

UNFILED_AREA = "Other"


def normalize_heading(text):
    """Fold the spellings of one heading together: case, "&" versus "and", punctuation."""
    text = text.lower().replace("&", " and ")
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text).split())


class AreaResolver:
    """Find the area a heading names, by name or alias; plan new areas for editors to review."""

    def __init__(self):
        self.by_heading = {}
        for area in Area.objects.prefetch_related("aliases"):
            self.by_heading[normalize_heading(area.name)] = area
            for alias in area.aliases.all():
                self.by_heading[normalize_heading(alias.name)] = area
        self.taken_slugs = set(Area.objects.values_list("slug", flat=True))
        self.created = []

    def find(self, heading):
        return self.by_heading.get(normalize_heading(heading or UNFILED_AREA))

    def resolve(self, heading):
        """The area a heading names; a new, unsaved one flagged for review if none does."""
        area = self.find(heading)
        if area is None:
            name = (heading or UNFILED_AREA).strip()[:100]
            slug = unique_slug(slugify(name), self.taken_slugs)
            area = Area(name=name, slug=slug, needs_review=True)
            self.taken_slugs.add(slug)
            self.by_heading[normalize_heading(name)] = area
            self.created.append(area)
        return area

"""
Slugs: the one rule that turns a name into a slug, and the one that finds a slug nobody holds.
Plain Python: the importer's parser uses it as much as the models do.
"""

import re


def slugify(text, max_length=100):
    """Lower-case ASCII letters and digits joined by hyphens, cut at a hyphen to ``max_length``."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rsplit("-", 1)[0]
    return slug or "feature"


def unique_slug(base, taken, first_alternative=None):
    """
    ``base`` itself if ``taken`` (a container of slugs, or a function of a slug) does not hold
    it; else ``first_alternative`` if given and free; else ``base-2``, ``base-3``, ...
    """
    is_taken = taken if callable(taken) else taken.__contains__
    if not is_taken(base):
        return base
    if first_alternative and not is_taken(first_alternative):
        return first_alternative
    counter = 2
    while is_taken(f"{base}-{counter}"):
        counter += 1
    return f"{base}-{counter}"

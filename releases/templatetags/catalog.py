"""The pages' template filters."""

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from releases import surfaces, text
from releases.writes import is_web_url

register = template.Library()


@register.filter
def marked(value, search):
    """``value`` with the words ``search`` matched in <mark>, as search matches them."""
    query = text.folded_words(search)
    if not query:
        return value
    return mark_safe(  # noqa: S308 - every piece is escaped
        "".join(
            f"<mark>{escape(piece)}</mark>" if matched else escape(piece)
            for piece, matched in text.marks(str(value), query)
        )
    )


@register.filter(name="is_web_url")
def is_web_url_filter(value):
    """Whether a stored URL may be rendered as a link: http and https only (writes.is_web_url),
    so that a row written before the rule never renders as a javascript: or data: link."""
    return is_web_url(value)


@register.simple_tag
def site_menu():
    """[(label, URL name)] of the pages in the site's menu (releases.surfaces.in_menu)."""
    return surfaces.menu()

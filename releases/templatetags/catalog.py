"""The pages' template filters."""

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from releases import text

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

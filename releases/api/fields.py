"""Fields the API's serializers share."""

from rest_framework import serializers


class BlankAsNull:
    """A field shown as null where the catalog stores an empty string."""

    def to_representation(self, value):
        return value or None


class BlankAsNullURLField(BlankAsNull, serializers.URLField):
    """A URL, or null where the catalog stores an empty string (a missing link)."""


class BlankAsNullCharField(BlankAsNull, serializers.CharField):
    """Text, or null where the catalog stores an empty string."""

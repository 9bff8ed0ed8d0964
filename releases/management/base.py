"""
What every command that writes to the catalog shares: a database that refuses the write (a
read-only disk, a server gone) ends the command with one line naming the cause and exit status
1, never a traceback; the command's own transactions mean nothing was half-written.
"""

from django.core.management.base import BaseCommand, CommandError

from releases.web import unavailable


class CatalogCommand(BaseCommand):
    def execute(self, *args, **options):
        try:
            return super().execute(*args, **options)
        except unavailable.DATABASE_AWAY as error:
            raise CommandError(
                f"the database refused the work ({unavailable.one_line(error)}); nothing was "
                "written"
            ) from None

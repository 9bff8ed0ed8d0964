"""
When the database refuses: which errors mean it is away (refused, reset, locked past its
timeout, read-only, out of disk) rather than a bug, and how to say so in one line. Read by
every surface that answers for it: the 503 (releases.web.unavailable), the admin's kept form
and the commands' one-line error.
"""

from django.db import InterfaceError, OperationalError

DATABASE_AWAY = (OperationalError, InterfaceError)


def database_away(error):
    return isinstance(error, DATABASE_AWAY)


def one_line(error):
    return " ".join(str(error).split())[:200] or type(error).__name__


def refused(error):
    """What an editor is told of a save the database refused: nothing was written."""
    return (
        f"Not saved: the database refused the change ({one_line(error)}). Nothing was "
        "written; what you entered is below, to save again once the database takes writes."
    )

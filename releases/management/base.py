"""
What every command that writes to the catalog shares: a database that refuses the write (a
read-only disk, a server gone) ends the command with one line naming the cause and exit status
1, never a traceback; the command's own transactions mean nothing was half-written.
"""

import logging
import re
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from releases import outage, writes
from releases.importing.download import DownloadError, download, is_url

SECONDS_RE = re.compile(r"[0-9]{1,4}(\.[0-9]{1,3})?")


class CatalogCommand(BaseCommand):
    # How many digits a whole-number option may have (``number``).
    NUMBER_DIGITS = 9
    # The largest document an import reads (``read_document``).
    MAX_DOCUMENT_BYTES = 2 * 1024 * 1024

    def execute(self, *args, **options):
        # httpx logs every request at INFO: a command's output shows them at -v 3 only.
        verbosity = options.get("verbosity", 1)
        logging.getLogger("httpx").setLevel(logging.INFO if verbosity >= 3 else logging.WARNING)
        try:
            return super().execute(*args, **options)
        except outage.DATABASE_AWAY as error:
            raise CommandError(
                f"the database refused the work ({outage.one_line(error)}); nothing was written"
            ) from None

    @classmethod
    def number(cls, option, text):
        """An option's whole number from 1, in ASCII digits, or an error naming the option."""
        if not re.fullmatch(f"[0-9]{{1,{cls.NUMBER_DIGITS}}}", str(text)) or int(text) < 1:
            raise CommandError(f"{option}: must be a whole number from 1; got {text!r}.")
        return int(text)

    @staticmethod
    def seconds(option, text, minimum=0.0):
        """An option's seconds (1, 0.5), at least ``minimum``, or an error naming the option."""
        if not SECONDS_RE.fullmatch(str(text)) or float(text) < minimum:
            raise CommandError(
                f"{option}: must be a number of seconds, e.g. 1 or 0.5; got {text!r}."
            )
        return float(text)

    @staticmethod
    def add_document_arguments(parser, what):
        """An import's arguments: the document (``what``: its formats), where it is published,
        and a dry run."""
        parser.add_argument("path", help=f"{what}: a file, or an http(s) URL.")
        parser.add_argument(
            "--source-url",
            default="",
            help="The URL the rows record as their source (the document's published, pinned "
            "address); a downloaded document records its own URL.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Show what would change; write nothing."
        )

    @classmethod
    def read_document(cls, path):
        """
        (text, source URL) of an import's document, a file or an http(s) URL ("" for a file);
        a CommandError of one line naming it for what cannot be read.
        """
        text, url = cls.read_raw(path)
        # A byte-order mark is read as nothing; a NUL or other control character is refused,
        # by the rule of what stored text may hold (writes.CONTROL).
        text = text.removeprefix("\ufeff")
        control = writes.CONTROL.search(text)
        if control:
            line = text.count("\n", 0, control.start()) + 1
            raise CommandError(
                f"{path}:{line}: a control character (U+{ord(control.group()):04X}) in the text"
            )
        return text, url

    @classmethod
    def read_raw(cls, path):
        if is_url(path):
            try:
                return download(path, catalog_url=settings.CATALOG_URL)
            except DownloadError as error:
                raise CommandError(str(error)) from None
        file, limit = Path(path), cls.MAX_DOCUMENT_BYTES
        try:
            if file.stat().st_size > limit:
                raise CommandError(f"{path}: larger than {limit // 1024 // 1024} MiB")
            return file.read_text(encoding="utf-8"), ""
        except FileNotFoundError:
            raise CommandError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise CommandError(f"{path}: a folder, not a file") from None
        except UnicodeDecodeError as error:
            raise CommandError(f"{path}: not UTF-8 text (byte {error.start})") from None
        except OSError as error:
            raise CommandError(f"{path}: cannot be read ({error.strerror})") from None

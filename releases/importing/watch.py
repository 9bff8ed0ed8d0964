"""
Keeping the catalog current: ``manage.py watch_blog`` reads the blog's feed, notes every post
that announces a release, and imports each release the catalog never held as a draft, through
``import_post``, so that it waits on the editors' desk.

A run, safe to start from cron as often as one likes:

1. takes the watch's lease (``BlogFeed.lease_*``, a conditional UPDATE): one run at a time on
   every host that shares the database; a second run says so and does nothing. A run that
   dies keeps the lease until it lapses (``LEASE``), so a crash blocks nothing for long;
2. asks for the feed conditionally, sending back the ETag and Last-Modified of its last
   answer: an unchanged feed is a 304 and nothing more;
3. records every release announcement the feed lists (``BlogAnnouncement``) together with the
   feed's new validators, in one transaction: a feed that errors, times out or is not a feed
   changes nothing, validators included;
4. downloads each announced post whose release the catalog never held (nor held and deleted),
   oldest version first, and imports it as ``import_post URL`` does (the same parser and
   sync): a draft, or the importer's reason, recorded on the announcement for the desk. A
   post that was not imported is tried again on the next run.

HTTP, the same for the feed and the posts (``fetch``): a User-Agent that names the catalog, a
timeout to connect and per read and a deadline for the whole answer, a size limit, redirects
followed (a few). A 5xx answer, a timeout or a dropped connection is tried again, ``attempts``
times in all, waiting ``backoff`` seconds, then twice that (or what a ``Retry-After`` asks, up
to ``MAX_RETRY_WAIT``); a 4xx answer never is. Posts are downloaded only from the feed's own
site: a feed cannot send the watch to fetch addresses elsewhere.
"""

import datetime as dt
import logging
import re
import time
import urllib.parse
from dataclasses import dataclass, field

import httpx
from django.db import transaction
from django.utils import timezone

from releases import versions
from releases.importing import download, lease, sync
from releases.importing.download import ACCEPT_ENCODING, DownloadError, text_of
from releases.importing.feed import (
    FeedError,
    read_feed,
    same_site,
)
from releases.importing.parse import MAX_POST_BYTES, PostError, parse_post
from releases.models import BlogFeed, Release

logger = logging.getLogger(__name__)

MAX_FEED_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
# The longest Retry-After a run waits for; a server that asks for more is tried next run.
MAX_RETRY_WAIT = 60.0
# How long a run holds the watch without renewing it: well beyond one step (a download with
# its retries, or an import), so only a run that died loses it.
LEASE = dt.timedelta(minutes=15)
RETRY_AFTER_SECONDS_RE = re.compile(r"[0-9]{1,6}")
# The release announcements one run records, newest first: more than the blog has ever held,
# and few enough that recording them is one short transaction.
MAX_ANNOUNCEMENTS = 500


def user_agent(catalog_url=""):
    """What every request of the watch says it is (``download.user_agent``)."""
    return download.user_agent(catalog_url, purpose="watch")


@dataclass(frozen=True)
class Policy:
    """How politely and how long to ask."""

    user_agent: str
    timeout: float = 10.0  # seconds to connect, and for each read
    attempts: int = 3  # requests for one URL, the first included
    backoff: float = 2.0  # seconds before the second attempt; doubled before each next one
    limit: int = 10  # posts downloaded in one run; the rest wait for the next

    @property
    def deadline(self):
        """The most one answer may take, however slowly its bytes arrive."""
        return 3 * self.timeout


class FetchError(Exception):
    """A URL gave no usable answer: unreachable after its attempts, a 4xx, too large."""


class Refused(Exception):
    """The importer's no: the post cannot be imported as it is (its reason, in one line)."""


@dataclass(frozen=True)
class Answer:
    status: int
    url: str  # where the redirects ended
    headers: httpx.Headers
    body: bytes = b""
    charset: str | None = None  # as the Content-Type names it

    @property
    def content_type(self):
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


def fetch(client, url, policy, *, headers=None, max_bytes):
    """
    GET ``url``: a 2xx or 304 Answer, or FetchError saying why not, after ``policy.attempts``
    tries for what may pass (5xx, timeouts, dropped connections), after one for the rest.
    """
    problem = ""
    for attempt in range(1, policy.attempts + 1):
        wait = policy.backoff * 2 ** (attempt - 1)
        try:
            with client.stream("GET", url, headers=headers) as response:
                status = response.status_code
                if status == 304 or 200 <= status < 300:
                    body = (
                        b""
                        if status == 304
                        else download.read_body(
                            response, url, policy.deadline, max_bytes, what="it"
                        )
                    )
                    return Answer(
                        status, str(response.url), response.headers, body, response.charset_encoding
                    )
                problem = f"HTTP {status} {response.reason_phrase}".strip()
                if status < 500:
                    raise FetchError(f"{url}: {problem}")
                asked = retry_after(response.headers.get("retry-after", ""))
                if asked is not None and asked > MAX_RETRY_WAIT:
                    raise FetchError(f"{url}: {problem}, asking to come back in {asked:.0f} s")
                wait = max(wait, asked or 0)
        except download.TooSlow:
            problem = f"the answer took longer than {policy.deadline:g} s"
        except download.DownloadError as error:  # too large, encoded past reading
            raise FetchError(str(error)) from None
        except httpx.TimeoutException:
            problem = f"no answer within {policy.timeout:g} s"
        except (httpx.NetworkError, httpx.RemoteProtocolError) as error:
            problem = f"cannot connect: {error}" if str(error) else "the connection failed"
        except httpx.TooManyRedirects:
            raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects") from None
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            raise FetchError(f"{url}: {error}") from None
        if attempt < policy.attempts:
            time.sleep(wait)
    tries = f"{policy.attempts} attempts" if policy.attempts > 1 else "1 attempt"
    raise FetchError(f"{url}: {problem} ({tries})")


def retry_after(value):
    """A Retry-After in seconds; None for none, or for an HTTP date (backoff decides then)."""
    value = value.strip()
    return float(value) if RETRY_AFTER_SECONDS_RE.fullmatch(value) else None


# --- the feed ------------------------------------------------------------------------------------


# --- a run ---------------------------------------------------------------------------------------


@dataclass
class Run:
    """What one run did: its summary line, and whether it failed."""

    feed_url: str
    busy: str = ""  # another run holds the watch: who
    failure: str = ""  # the feed could not be read: why
    unchanged: bool = False  # the feed answered 304
    posts: int = 0  # posts the feed lists
    announcements: int = 0  # of those, release announcements
    new: list = field(default_factory=list)  # announcements first seen in this run
    imported: list = field(default_factory=list)  # versions imported as drafts
    refused: list = field(default_factory=list)  # (version, why): the importer's reasons
    failures: list = field(default_factory=list)  # (version, why): posts out of reach, ...
    left: int = 0  # announcements left for the next run (``Policy.limit``)
    unread: int = 0  # announcements past MAX_ANNOUNCEMENTS, the oldest: not recorded
    reports: list = field(default_factory=list)  # (version, the importer's report)

    @property
    def failed(self):
        """A failure for cron: the feed or a post could not be had (not the importer's no)."""
        return bool(self.failure or self.failures)

    def summary(self):
        if self.busy:
            return f"watch_blog: another run is active ({self.busy}); this one did nothing."
        if self.failure:
            return f"watch_blog: {self.feed_url}: {self.failure}; the catalog is unchanged."
        if self.unchanged:
            found = f"{self.feed_url} unchanged since the last run (304)"
        else:
            found = (
                f"{self.feed_url}: {plural(self.posts, 'post')}, "
                f"{plural(self.announcements, 'release announcement')} ({len(self.new)} new)"
            )
        done = []
        if self.imported:
            done.append(f"imported {', '.join(self.imported)} as {drafts(len(self.imported))}")
        if self.refused:
            done.append(
                "not imported (see the editors' desk): "
                + "; ".join(f"{version}: {why}" for version, why in self.refused)
            )
        if self.failures:
            done.append(
                "failed: " + "; ".join(f"{version}: {why}" for version, why in self.failures)
            )
        if self.left:
            done.append(f"{plural(self.left, 'post')} left for the next run")
        if self.unread:
            done.append(
                f"the oldest {plural(self.unread, 'announcement')} past {MAX_ANNOUNCEMENTS} "
                "not recorded"
            )
        return f"watch_blog: {found}; {'; '.join(done) or 'nothing to import'}."


def plural(count, noun):
    return f"{count} {noun}{'' if count == 1 else 's'}"


def drafts(count):
    return "a draft" if count == 1 else "drafts"


def watch(feed_url, policy):
    """One run of the watch over ``feed_url``: a Run saying what it did."""
    run = Run(feed_url)
    holder = lease.holder()
    feed = lease.take(BlogFeed, holder, LEASE, url=feed_url)
    if feed is None:
        run.busy = lease.description(BlogFeed, url=feed_url)
        return run
    try:
        with httpx.Client(
            headers={"User-Agent": policy.user_agent, "Accept-Encoding": ACCEPT_ENCODING},
            timeout=policy.timeout,
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
        ) as client:
            read(client, feed, policy, run)
            if not run.failure:
                import_announced(client, feed, policy, run, holder)
    finally:
        finish(feed, holder, run)
    return run


def read(client, feed, policy, run):
    """Ask for the feed and record its release announcements, with its validators."""
    validators = {}
    if feed.etag:
        validators["If-None-Match"] = feed.etag
    if feed.last_modified:
        validators["If-Modified-Since"] = feed.last_modified
    try:
        answer = fetch(client, feed.url, policy, headers=validators, max_bytes=MAX_FEED_BYTES)
        if answer.status == 304:
            run.unchanged = True
            feed.read_at = timezone.now()
            return
        entries = read_feed(answer.body, url=answer.url, content_type=answer.content_type)
    except FetchError as error:
        run.failure = f"unreachable: {error.args[0].removeprefix(feed.url + ': ')}"
        return
    except FeedError as error:
        run.failure = f"not a usable feed: {error}"
        return
    now = timezone.now()
    announced = [entry for entry in entries if entry.version]
    run.posts, run.announcements = len(entries), len(announced)
    # Newest first, and no more than a run should write: a feed of 72,000 entries is one short
    # transaction, not a long one that keeps an editor's save waiting.
    announced.sort(key=newest_first)
    run.unread = max(0, len(announced) - MAX_ANNOUNCEMENTS)
    announced = announced[:MAX_ANNOUNCEMENTS]
    with transaction.atomic():
        for entry in announced:
            announcement, created = feed.announcements.get_or_create(
                url=entry.url,
                defaults={
                    "title": entry.title[:300],
                    "version": entry.version,
                    "published_date": entry.published_date,
                    "first_seen_at": now,
                    "last_seen_at": now,
                },
            )
            if created:
                run.new.append(entry.version)
                continue
            announcement.title, announcement.last_seen_at = entry.title[:300], now
            announcement.published_date = entry.published_date or announcement.published_date
            if not announcement.is_imported:
                announcement.version = entry.version  # a corrected title corrects the version
            announcement.save()
        feed.etag = answer.headers.get("etag", "")[:500]
        feed.last_modified = answer.headers.get("last-modified", "")[:100]
        feed.read_at = now
        feed.save(update_fields=["etag", "last_modified", "read_at"])


def newest_first(entry):
    """The order a feed's entries are read in: newest day first, then newest version."""
    day = entry.published_date or dt.date.min
    return (-day.toordinal(), -versions.Version.parse(entry.version).key)


def import_announced(client, feed, policy, run, holder):
    """
    Download and import, oldest version first, each announcement of this feed the catalog
    never held (another feed's are its own runs' to import).
    """
    pending = []
    for announcement in feed.announcements.filter(release__isnull=True).order_by("version_key"):
        held = held_release(announcement.version)
        if held is not None:
            announcement.release, announcement.problem = held, ""
            announcement.save(update_fields=["release", "problem"])
        elif once_held(announcement.version):
            announcement.problem = (
                f"the catalog held {announcement.version} once, and it was deleted: not imported "
                "again (import_post imports it, if it should come back)"
            )
            announcement.save(update_fields=["problem"])
        else:
            pending.append(announcement)
    run.left = max(0, len(pending) - policy.limit)
    for announcement in pending[: policy.limit]:
        if not lease.renew(feed, holder, LEASE):
            run.failures.append((announcement.version, "the run lost its lease and stopped"))
            return
        import_one(client, feed, policy, run, announcement)


def import_one(client, feed, policy, run, announcement):
    """Download one announced post and import it; record on it what became of it."""
    version = announcement.version
    announcement.attempted_at, announcement.problem = timezone.now(), ""
    if not same_site(announcement.url, feed.url):
        host = urllib.parse.urlsplit(feed.url).hostname
        announcement.problem = f"the post is not on the feed's site ({host}): not downloaded"
        run.refused.append((version, announcement.problem))
    else:
        try:
            answer = fetch(client, announcement.url, policy, max_bytes=MAX_POST_BYTES)
            report = import_downloaded(answer, version, announcement.url)
        except FetchError as error:
            announcement.problem = f"download failed: {error}"
            run.failures.append((version, announcement.problem))
        except Refused as error:
            announcement.problem = f"import_post refused it: {error}"
            run.refused.append((version, announcement.problem))
        except Exception as error:
            # A post the parser trips on is the parser's bug: say so, and go on with the rest.
            logger.exception("watch_blog: importing %s failed", announcement.url)
            announcement.problem = f"the importer failed: {type(error).__name__}: {error}"
            run.failures.append((version, announcement.problem))
        else:
            announcement.release = held_release(version)
            run.imported.append(version)
            run.reports.append((version, report))
    announcement.save(update_fields=["attempted_at", "problem", "release"])


def import_downloaded(answer, version, source):
    """
    Import a downloaded post as ``import_post URL`` does, through the same parser and sync,
    recorded in the history as made by ``import_post`` and ``source`` (the feed's link): a
    draft of ``version`` (the feed's, should the post's own title spell it otherwise). Returns
    the importer's report; Refused with its reason, naming the URL and the post's line.
    """
    try:
        text = text_of(answer.body, answer.charset, answer.url)
        parsed = parse_post(text, filename=answer.url, version=version, url=answer.url)
        # Where the post is published, should it not say so itself (a markdown post's
        # permalink): the announcement's address and every fact's source.
        parsed.announcement_url = parsed.announcement_url or answer.url
        parsed.post_url = parsed.post_url or answer.url
        report = sync.import_post(parsed, source=source)
    except DownloadError as error:
        raise Refused(str(error)) from None
    except (PostError, sync.ImportProblem) as error:
        where = f"{answer.url}:{error.line}" if error.line else answer.url
        raise Refused(" ".join(f"{where}: {error.message}".split())) from None
    return "\n".join(report.lines())


def held_release(version):
    """The catalog's release of ``version`` ("2.1" and "2.1.0" alike), if it holds one."""
    key = versions.Version.parse(version).key
    return Release.objects.filter(version_key=key).first()


def once_held(version):
    """Whether the catalog held ``version`` once: what an editor deleted stays deleted."""
    return Release.history.filter(version=version).exists()


def finish(feed, holder, run):
    """Record the run on the feed's row and let the lease go, if it still holds it."""
    lease.let_go(feed, holder)
    feed.checked_at, feed.is_failing = timezone.now(), run.failed
    feed.outcome = run.summary()[:500]
    feed.save(update_fields=["checked_at", "is_failing", "outcome", "read_at"])

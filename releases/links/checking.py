"""
Checking links over HTTP, politely, and the rule that turns checks into a link's status.

Plain Python and httpx, no Django: ``check_links`` (releases/links/health.py) picks the links
and records what this module finds.

How a URL is checked:

- HEAD first. Where a server refuses HEAD (405, 501) or answers it with another error, the
  same URL is asked again with GET, reading the headers only: some servers and CDNs answer
  HEAD with 403 or 404 and GET with the page. A host that refused HEAD once gets GET only.
- Redirects are followed by hand, hop by hop, up to ``max_redirects``; a URL seen twice is
  a loop. Every hop is a request to its own host, under that host's rules below.
- At most ``concurrency`` requests at a time overall, and one at a time per host, each
  ``delay`` seconds after the previous answer from that host (HEAD and its GET included).
- Timeouts on connecting and on each read.
- 429, or 503 with ``Retry-After``: the host is left alone for as long as it asks, if that
  is within ``max_retry_wait``, then asked once more; beyond that, or if it asks again, the
  URL is *deferred*: nothing is recorded, and the next run checks it first.
- Addresses that are not public (loopback, private networks, link-local, as a redirect may
  point at) are not requested unless ``allow_private`` is set: the status of a link is
  public, and must not become a way to probe the server's own network.

What one check finds (``Probe.outcome``): ``ok`` (a 2xx answer, directly or after a
redirect that is temporary somewhere on the way), ``redirected`` (a 2xx answer at the end of
permanent redirects only, 301 or 308: the link should move there), ``failed`` (an HTTP
error, a redirect loop or too many redirects), ``unreachable`` (refused connection, unknown
name, timeout), ``deferred``. ``judge()`` turns a probe and the link's previous ``Health``
into its new one: a failure counts, but the status becomes ``broken`` or ``unreachable``
only after two failed checks at least a day apart.
"""

import asyncio
import datetime as dt
import email.utils
import ipaddress
import math
import re
import socket
import time
from collections import defaultdict
from dataclasses import dataclass

import httpx

# What one check finds.
OK, REDIRECTED, FAILED, UNREACHABLE, DEFERRED = (
    "ok",
    "redirected",
    "failed",
    "unreachable",
    "deferred",
)
# A link's statuses: ok, redirected, unreachable and these (releases.models.LinkStatus).
UNCHECKED, BROKEN = "unchecked", "broken"

REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
PERMANENT_REDIRECT_CODES = frozenset({301, 308})
HEAD_REFUSED_CODES = frozenset({405, 501})
BUSY_CODES = frozenset({429, 503})
# Failures count towards "broken" only when they last: two checks at least this far apart.
CONFIRMATION = dt.timedelta(days=1)

VERSION = "1.0"
RETRY_AFTER_SECONDS_RE = re.compile(r"[0-9]{1,10}")


def user_agent(catalog_url):
    """What every request says it is: the catalog, and where its maintainers can be found."""
    return f"PyTorchReleaseCatalog-linkcheck/{VERSION} (PyTorch Release Catalog; +{catalog_url})"


@dataclass(frozen=True)
class Policy:
    """How to check: the limits that keep the checker polite and bounded."""

    user_agent: str
    timeout: float = 10.0  # seconds to connect, and for each read
    delay: float = 1.0  # seconds between an answer from a host and the next request to it
    concurrency: int = 8  # requests in flight at a time, all hosts together
    max_redirects: int = 10
    max_retry_wait: float = 60.0  # the longest Retry-After honoured within a run, in seconds
    allow_private: bool = False  # check loopback and private addresses too (the tests' server)


@dataclass(frozen=True)
class Probe:
    """What one check of ``url`` found."""

    url: str
    outcome: str
    http_status: int | None = None
    final_url: str = ""  # where redirects ended; empty without redirects
    detail: str = ""  # why it failed, in words


@dataclass(frozen=True)
class Health:
    """What a link's checks have found so far: the fields ``judge()`` derives."""

    status: str = UNCHECKED
    http_status: int | None = None
    final_url: str = ""
    checked_at: dt.datetime | None = None
    consecutive_failures: int = 0
    first_failure_at: dt.datetime | None = None


def judge(previous, probe, now):
    """
    A link's Health after ``probe``, checked at ``now``, given its ``previous`` Health.

    A success sets the status and forgets past failures. A failure is counted and observed
    (its HTTP code, when it was checked), but the status becomes ``broken`` (an HTTP error)
    or ``unreachable`` only once the link has failed at least twice in a row, the first of
    those failures at least a day ago: until then it keeps the status it had, so a site's bad
    hour does not reach the editors' queue. A deferred check changes nothing.
    """
    if probe.outcome == DEFERRED:
        return previous
    if probe.outcome in (OK, REDIRECTED):
        return Health(probe.outcome, probe.http_status, probe.final_url, now, 0, None)
    failures = previous.consecutive_failures + 1
    first_failure_at = previous.first_failure_at if previous.consecutive_failures else now
    if failures >= 2 and now - first_failure_at >= CONFIRMATION:
        status = BROKEN if probe.outcome == FAILED else UNREACHABLE
        final_url = probe.final_url
    else:
        status, final_url = previous.status, previous.final_url
    return Health(status, probe.http_status, final_url, now, failures, first_failure_at)


def retry_after_seconds(value, now=None):
    """
    How long a ``Retry-After`` header asks to wait, in seconds: delay-seconds or an HTTP
    date (RFC 9110 10.2.3); None when absent or unreadable.
    """
    if value is None:
        return None
    value = value.strip()
    if RETRY_AFTER_SECONDS_RE.fullmatch(value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - (now or dt.datetime.now(dt.UTC))).total_seconds())


class Deferred(Exception):
    """The host asked us to come back later than this run will wait."""


class NotPublic(Exception):
    """The URL's host is not a public address (and private ones are not allowed)."""


class Host:
    """One host's turn: one request at a time, ``delay`` after the previous answer."""

    def __init__(self):
        self.lock = asyncio.Lock()
        self.free_at = 0.0  # time.monotonic() before which no request may start
        self.deferred_until = 0.0
        self.head_refused = False
        self.is_public = None  # learnt once per run


async def is_public_host(host):
    """Whether every address ``host`` names or resolves to is a public (global) one."""
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    return all(address.is_global for address in addresses)


class Checker:
    """Checks URLs under a Policy: ``asyncio.run(Checker(policy).check_all(urls))``."""

    def __init__(self, policy, transport=None):
        self.policy = policy
        self.transport = transport

    async def check_all(self, urls):
        """{url: Probe} for every URL of ``urls`` (each checked once)."""
        self.semaphore = asyncio.Semaphore(self.policy.concurrency)
        self.hosts = defaultdict(Host)
        timeout = httpx.Timeout(self.policy.timeout)
        async with httpx.AsyncClient(
            headers={"User-Agent": self.policy.user_agent},
            timeout=timeout,
            follow_redirects=False,
            transport=self.transport,
            limits=httpx.Limits(max_connections=self.policy.concurrency),
        ) as client:
            self.client = client
            probes = await asyncio.gather(*(self.check(url) for url in dict.fromkeys(urls)))
        return {probe.url: probe for probe in probes}

    async def check(self, url):
        """The Probe of one URL: its redirects followed, each hop under its host's rules."""
        current, permanent, seen, status = url, True, set(), None
        for _ in range(self.policy.max_redirects + 1):
            if current in seen:
                return Probe(url, FAILED, status, ended(url, current), "redirect loop")
            seen.add(current)
            try:
                response = await self.request(current)
            except Deferred as error:
                return Probe(url, DEFERRED, detail=str(error))
            except NotPublic:
                return Probe(url, FAILED, None, ended(url, current), "not a public address")
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
                return Probe(url, FAILED, None, ended(url, current), f"bad URL: {error}")
            except httpx.TimeoutException:
                return Probe(url, UNREACHABLE, None, ended(url, current), "timed out")
            except (httpx.TransportError, OSError) as error:
                detail = f"{type(error).__name__}: {error}".rstrip(": ")
                return Probe(url, UNREACHABLE, None, ended(url, current), detail)
            status = response.status_code
            location = response.headers.get("location")
            if status in REDIRECT_CODES and location:
                permanent = permanent and status in PERMANENT_REDIRECT_CODES
                try:
                    current = str(response.url.join(location))
                except httpx.InvalidURL as error:
                    return Probe(url, FAILED, status, "", f"bad redirect: {error}")
                continue
            final_url = ended(url, current)
            if 200 <= status < 300:
                return Probe(url, REDIRECTED if final_url and permanent else OK, status, final_url)
            return Probe(url, FAILED, status, final_url, response.reason_phrase)
        return Probe(
            url,
            FAILED,
            status,
            ended(url, current),
            f"more than {self.policy.max_redirects} redirects",
        )

    async def request(self, url):
        """
        The answer to HEAD ``url``, or to GET where the host refuses HEAD, waiting as the host
        asks (Retry-After) within the policy's limit. Raises Deferred beyond it, and httpx's
        errors for what never got an answer.
        """
        parsed = httpx.URL(url)
        if parsed.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"{parsed.scheme or 'no'} scheme")
        host = self.hosts[parsed.host.lower()]
        async with host.lock:
            if time.monotonic() < host.deferred_until:
                raise Deferred(f"{parsed.host} asked to wait")
            if not self.policy.allow_private:
                if host.is_public is None:
                    host.is_public = await is_public_host(parsed.host)
                if not host.is_public:
                    raise NotPublic(parsed.host)
            response = await self.head_or_get(host, url)
            if response.status_code not in BUSY_CODES:
                return response
            wait = retry_after_seconds(response.headers.get("retry-after"))
            if wait is None:
                if response.status_code == 503:
                    return response  # a server error, not a request to wait
                wait = math.inf  # 429 without a time: leave the host alone for this run
            if wait > self.policy.max_retry_wait:
                host.deferred_until = time.monotonic() + wait
                raise Deferred(f"{parsed.host} asked to wait {wait:g} s")
            host.free_at = max(host.free_at, time.monotonic() + wait)
            response = await self.head_or_get(host, url)
            busy = response.status_code == 429 or (
                response.status_code == 503 and "retry-after" in response.headers
            )
            if busy:
                host.deferred_until = math.inf
                raise Deferred(f"{parsed.host} asked to wait again")
            return response

    async def head_or_get(self, host, url):
        if not host.head_refused:
            response = await self.send(host, "HEAD", url)
            status = response.status_code
            if status < 400 or status in BUSY_CODES:
                return response
            if status in HEAD_REFUSED_CODES:
                host.head_refused = True
        return await self.send(host, "GET", url)

    async def send(self, host, method, url):
        """One request, in the host's turn: its headers only, the body never read."""
        await asyncio.sleep(max(0.0, host.free_at - time.monotonic()))
        try:
            async with self.semaphore:
                async with self.client.stream(method, url) as response:
                    return response
        finally:
            host.free_at = time.monotonic() + self.policy.delay


def ended(url, current):
    """Where a check ended, if not where it started; a fragment the redirects lost is kept."""
    if current == url:
        return ""
    fragment = httpx.URL(url).fragment
    if fragment and not httpx.URL(current).fragment:
        current = f"{current}#{fragment}"
    return current


def check_urls(urls, policy, transport=None):
    """{url: Probe} for ``urls``, checked under ``policy``."""
    return asyncio.run(Checker(policy, transport).check_all(urls))

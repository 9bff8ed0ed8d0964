"""
Downloading one post for ``import_post URL``: the new blog's articles are pages on the web,
not files in a checkout. One GET with httpx: a User-Agent that names the catalog, a timeout to
connect and per read and a deadline for the whole answer, redirects followed (a few), at most
``MAX_POST_BYTES`` (refused past that, before it is read whole). Whatever goes wrong is a
``DownloadError`` of one line that names the URL. No Django here.
"""

import re
import time
import zlib

import httpx

from releases.importing.parse import MAX_POST_BYTES, decode

VERSION = "1.0"
TIMEOUT = 15.0  # seconds to connect, and for each read
MAX_REDIRECTS = 5
URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


class DownloadError(Exception):
    """The URL gave no post: unreachable, not a 200, too large, too slow, not text."""


class TooLarge(DownloadError):
    """An answer larger than the most it may be."""


class TooSlow(DownloadError):
    """An answer that kept coming, slowly, past its deadline (worth another try)."""


def is_url(text):
    """Does ``import_post``'s argument name a URL (any scheme) rather than a path?"""
    return bool(URL_RE.match(text or ""))


def user_agent(catalog_url="", purpose="import"):
    """
    What a request says it is: the catalog and what it is doing (``import``, ``watch``), and
    where the catalog is served when that is known.
    """
    where = f"; +{catalog_url}" if catalog_url else ""
    return f"PyTorchReleaseCatalog-{purpose}/{VERSION} (PyTorch Release Catalog{where})"


def one_line(error):
    return " ".join(str(error).split()) or type(error).__name__


def download(url, *, catalog_url="", timeout=TIMEOUT, transport=None):
    """(text, the URL the redirects ended at) of a post on the web; DownloadError otherwise."""
    scheme = url.split(":", 1)[0].lower()
    if scheme not in {"http", "https"}:
        raise DownloadError(f"{url}: only http and https URLs can be downloaded")
    headers = {
        "User-Agent": user_agent(catalog_url),
        "Accept": "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.8",
        "Accept-Encoding": ACCEPT_ENCODING,
    }
    deadline = 3 * timeout
    try:
        with httpx.Client(
            headers=headers,
            timeout=timeout,
            follow_redirects=True,
            max_redirects=MAX_REDIRECTS,
            transport=transport,
        ) as client:
            with client.stream("GET", url) as response:
                if response.status_code != 200:
                    problem = f"HTTP {response.status_code} {response.reason_phrase}".strip()
                    raise DownloadError(f"{url}: {problem}")
                body = read_body(response, url, deadline)
                final_url, charset = str(response.url), response.charset_encoding
    except httpx.TimeoutException:
        raise DownloadError(f"{url}: no answer within {timeout:g} s") from None
    except httpx.TooManyRedirects:
        raise DownloadError(f"{url}: more than {MAX_REDIRECTS} redirects") from None
    except httpx.HTTPError as error:
        raise DownloadError(f"{url}: cannot download it: {one_line(error)}") from None
    if not body.strip():
        raise DownloadError(f"{url}: the answer is empty")
    return text_of(body, charset, url), final_url


def read_body(response, url, deadline, max_bytes=MAX_POST_BYTES, what="a post"):
    """
    The body, decompressed, refused past ``max_bytes`` (announced, received or inflated:
    TooLarge) or past the deadline (TooSlow). Every download reads its answer through it
    (``import_post URL``, ``watch_blog``, ``sync_index``). The raw bytes are inflated here, a
    bounded piece at a time, so that a small compressed answer cannot grow past the limit in
    memory before it is refused.
    """
    limit = size_text(max_bytes)

    def too_large():
        return TooLarge(f"{url}: the answer is larger than {limit}, the most {what} may be")

    length = response.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > max_bytes:
        raise too_large()
    try:
        inflate = Inflater(response.headers.get("content-encoding", ""), max_bytes)
    except ValueError as error:
        raise DownloadError(f"{url}: {error}") from None
    started, chunks, size = time.monotonic(), [], 0
    for raw in response.iter_raw():
        try:
            chunk = inflate(raw)
        except Overflow:
            raise too_large() from None
        except zlib.error as error:
            raise DownloadError(f"{url}: the compressed answer is broken ({error})") from None
        size += len(chunk)
        if size > max_bytes:
            raise too_large()
        if time.monotonic() - started > deadline:
            raise TooSlow(f"{url}: the answer took longer than {deadline:g} s")
        chunks.append(chunk)
    return b"".join(chunks)


class Overflow(Exception):
    """Inflating would pass the limit."""


# zlib's window bits for each Content-Encoding the catalog accepts (and asks for).
WINDOW_BITS = {"gzip": 31, "x-gzip": 31, "deflate": 15}
ACCEPT_ENCODING = "gzip, deflate"


class Inflater:
    """
    Undo an answer's Content-Encoding (``gzip`` or ``deflate``), a chunk at a time, never
    making more than ``max_bytes``: zlib's ``max_length`` stops each step at the limit, and
    anything left over means the answer is too large. An encoding the catalog did not ask for,
    or encodings stacked (``gzip, gzip``: only a bomb needs them), is refused before a byte is
    inflated.
    """

    def __init__(self, encoding, max_bytes):
        names = [name.strip().lower() for name in encoding.split(",") if name.strip()]
        names = [name for name in names if name != "identity"]
        unknown = [name for name in names if name not in WINDOW_BITS]
        if unknown:
            raise ValueError(f"the answer is encoded as {unknown[0]!r}, which is not understood")
        if len(names) > 1:
            raise ValueError(
                f"the answer is encoded {len(names)} times over ({', '.join(names)}); "
                "one encoding at most is read"
            )
        self.layers = [zlib.decompressobj(WINDOW_BITS[name]) for name in names]
        self.max_bytes = max_bytes

    def __call__(self, data):
        for layer in self.layers:
            data = layer.decompress(data, self.max_bytes + 1)
            if layer.unconsumed_tail or len(data) > self.max_bytes:
                raise Overflow
        return data


def size_text(size):
    """2 MiB, 300 bytes: a limit as people read it."""
    mib = 1024 * 1024
    return f"{size / mib:g} MiB" if size >= mib else f"{size} bytes"


def text_of(body, charset, url):
    """The body as text: in the charset the answer names, else UTF-8."""
    try:
        if charset and charset.lower().replace("_", "-") not in {"utf-8", "utf8"}:
            return body.decode(charset)
        return decode(body)
    except (LookupError, UnicodeDecodeError, ValueError) as error:
        message = getattr(error, "message", None) or one_line(error)
        raise DownloadError(f"{url}: the answer is not text: {message}") from None

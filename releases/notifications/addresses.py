"""
Which webhook targets the catalog may call: ``https`` on a public address. A catalog must not
be made to POST into the network it runs in (its database, a cloud's metadata service), so a
loopback, private, link-local or otherwise reserved address is refused, when an endpoint is
registered and again when it is called, on the address the name resolves to then; the request
then goes to that very address, so a name that resolves anew between the check and the call
cannot slip past. ``WEBHOOK_ALLOW_PRIVATE`` (development and tests only) allows such addresses,
and plain http to them.
"""

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings


class Refused(ValueError):
    """A target the catalog will not call, with the reason."""


def is_public(address):
    return ipaddress.ip_address(address).is_global


def check_url(url):
    """(scheme, host, port) of ``url`` if it may be a target at all; Refused otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise Refused(f"{url!r} is not a URL: {error}") from None
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused("a webhook's URL is https://HOST/PATH")
    if parts.username or parts.password:
        raise Refused("a webhook's URL carries no user name or password: sign with the secret")
    if parts.scheme == "http" and not settings.WEBHOOK_ALLOW_PRIVATE:
        raise Refused("a webhook's URL must be https")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def resolve(url):
    """
    The address to call ``url`` at, checked: Refused when it is not public (unless
    WEBHOOK_ALLOW_PRIVATE) or does not resolve. Every address the name has must be public.
    """
    scheme, host, port = check_url(url)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise Refused(f"{host} does not resolve ({error})") from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    if not addresses:
        raise Refused(f"{host} does not resolve")
    if not settings.WEBHOOK_ALLOW_PRIVATE:
        for address in addresses:
            if not is_public(address):
                raise Refused(
                    f"{host} resolves to {address}, a loopback, private or reserved address"
                )
    elif scheme == "http" and any(is_public(a) for a in addresses):
        raise Refused("plain http is allowed to loopback and private addresses only")
    return addresses[0]

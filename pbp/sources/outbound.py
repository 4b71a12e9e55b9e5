"""Outbound confinement: pbp never fetches an address inside the operator's network.

Why: a narrator types a thread's address, and the worker fetches it. Without a check,
``http://127.0.0.1:6379/`` or ``http://169.254.169.254/latest/meta-data`` would make the
worker an open door into its own network (SSRF), and a page there shaped like a thread
would be ingested. So every connection a source opens -- forum HTTP through
:class:`~pbp.sources.http.PoliteClient`, Reddit through praw's session -- goes through
:class:`GuardedAdapter`:

* the name is resolved first, and *every* address it resolves to must be global (not
  loopback, RFC 1918 / ULA private, link-local, cloud metadata, unspecified, multicast,
  reserved or documentation; IPv4 inside IPv6 -- mapped, 6to4, NAT64 -- is judged by the
  IPv4 address it carries);
* the socket then connects to one of those checked addresses, never to the name again, so
  a DNS answer that changes between the check and the connection (rebinding) cannot swap
  the target;
* the check lives in the connection itself, so every redirect hop to a new host is
  checked the same way (:class:`PoliteClient` also follows redirects one by one);
* a proxy from the environment is not used: through a proxy the name is resolved where
  pbp cannot check it.

The operator, and only the operator (a setting, never a campaign's options), lets named
hosts through: ``allow_private_hosts = "127.0.0.1,forum.lan:8080"``
(``PBP_ALLOW_PRIVATE_HOSTS``). An entry is matched against the host *as written in the
URL* and, with ``:port``, that port only; an address on the list does not let other names
that resolve to it through.

No maintained PyPI library fits: ``advocate`` pins urllib3 < 2 and pyOpenSSL, so this is
a small urllib3 connection hook instead.

>>> allow = PrivateHosts.parse("127.0.0.1, forum.lan:8080, [::1]:9000")
>>> allow.allows("127.0.0.1", 8002), allow.allows("forum.lan", 8080), allow.allows("forum.lan", 80)
(True, True, False)
>>> allow.allows("::1", 9000), allow.allows("localhost", 8002)
(True, False)
>>> [is_public(ip_address(a)) for a in ("8.8.8.8", "10.0.0.1", "169.254.169.254", "::1",
...                                      "fd00:ec2::254", "::ffff:127.0.0.1", "2606:4700::1")]
[True, False, False, False, False, False, True]
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from typing import Any

from requests import PreparedRequest, Response
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.util import connection as u3connection

from ..errors import ConfigError
from .base import SourceError

#: the setting that lets hosts through, as an operator writes it (TOML name, variable)
SETTING = "allow_private_hosts"
VARIABLE = "PBP_ALLOW_PRIVATE_HOSTS"
_NAT64 = IPv6Network("64:ff9b::/96")
#: 192.0.0.0/24 (IETF protocol assignments) is private in newer Pythons, not in 3.11's
_EXTRA_PRIVATE = (IPv4Network("192.0.0.0/24"),)


def is_public(ip: IPv4Address | IPv6Address) -> bool:
    """Whether *ip* is a global unicast address a forum may live at. IPv6 forms that carry
    an IPv4 address are judged by that address."""
    if isinstance(ip, IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return is_public(embedded)
    elif any(ip in net for net in _EXTRA_PRIVATE):
        return False
    return ip.is_global and not ip.is_multicast


class PrivateAddressError(SourceError):
    """A host resolves to an address inside the network and the operator did not allow it.
    Permanent (``retryable`` False): a poll shows it and waits the long pause."""

    def __init__(self, host: str, port: int, address: str, *, where: str | None = None) -> None:
        named = address if address == host else f"{address} for {host}"
        self.host, self.port, self.address = host, port, address
        super().__init__(f"pbp does not fetch addresses inside your network ({named}); the "
                         f"operator can allow it with the setting {SETTING} "
                         f"({VARIABLE}={_entry(host, port)})", where=where)

    def at(self, where: str) -> PrivateAddressError:
        """The same refusal, said for *where* (the URL that was asked for)."""
        return PrivateAddressError(self.host, self.port, self.address, where=where)


def _entry(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _bare(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


@dataclass(frozen=True)
class PrivateHosts:
    """The operator's allow-list: (host, port or None for any port) pairs. Hashable, so
    clients built from equal settings are shared."""

    entries: frozenset[tuple[str, int | None]] = frozenset()

    @classmethod
    def parse(cls, text: str | None) -> PrivateHosts:
        """``"host, host:port, [v6]:port, v6"`` -> the allow-list; a bad port is a ConfigError."""
        out: set[tuple[str, int | None]] = set()
        for raw in (text or "").replace(";", ",").split(","):
            item = raw.strip()
            if not item:
                continue
            host, port = item, ""
            if item.startswith("["):
                host, _, rest = item[1:].partition("]")
                port = rest[1:] if rest.startswith(":") else rest
            elif item.count(":") == 1:
                host, _, port = item.partition(":")
            if port and not (port.isdigit() and 0 < int(port) < 65536):
                raise ConfigError(f"{SETTING}: {item!r} has no valid port (1-65535)", where=VARIABLE)
            if not _bare(host):
                raise ConfigError(f"{SETTING}: {item!r} names no host", where=VARIABLE)
            out.add((_bare(host), int(port) if port else None))
        return cls(frozenset(out))

    def allows(self, host: str, port: int) -> bool:
        h = _bare(host)
        return (h, None) in self.entries or (h, port) in self.entries


def checked_addresses(host: str, port: int, allow: PrivateHosts) -> list[str]:
    """The addresses to connect to for *host*:*port*: every one the name resolves to, each
    checked. Raises :class:`PrivateAddressError` when one is inside the network and the host is
    not allowed, ``socket.gaierror`` when the name does not resolve."""
    bare = _bare(host)
    infos = socket.getaddrinfo(bare, port, u3connection.allowed_gai_family(), socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not allow.allows(bare, port):
        for address in addresses:
            if not is_public(ip_address(address.split("%", 1)[0])):
                raise PrivateAddressError(bare, port, address)
    return addresses


def refusal(url_host: str, port: int, allow: PrivateHosts) -> PrivateAddressError | None:
    """The refusal a fetch of *url_host* would meet, or None (also when the name does not
    resolve now: the poll will say so). For the panel, before a source is saved."""
    try:
        checked_addresses(url_host, port, allow)
    except PrivateAddressError as exc:
        return exc
    except (OSError, UnicodeError):
        return None
    return None


class _Guarded:
    """Mixin for urllib3 connections: resolve, check, connect to the checked address."""

    pbp_allow: PrivateHosts = PrivateHosts()
    _dns_host: str
    host: str
    port: int
    timeout: Any
    source_address: Any
    socket_options: Any

    def _new_conn(self) -> socket.socket:
        try:
            addresses = checked_addresses(self._dns_host, self.port, self.pbp_allow)
        except socket.gaierror as e:
            raise NameResolutionError(self.host, self, e) from e  # type: ignore[arg-type]
        error: Exception | None = None
        for address in addresses:
            try:
                return u3connection.create_connection(
                    (address, self.port), self.timeout, source_address=self.source_address,
                    socket_options=self.socket_options)
            except TimeoutError as e:
                error = ConnectTimeoutError(self, f"Connection to {self.host} timed out. "
                                                  f"(connect timeout={self.timeout})")
                error.__cause__ = e
            except OSError as e:
                error = NewConnectionError(self, f"Failed to establish a new connection: {e}")  # type: ignore[arg-type]
                error.__cause__ = e
        assert error is not None
        raise error


def _pool_classes(allow: PrivateHosts) -> dict[str, type[HTTPConnectionPool]]:
    conn = type("GuardedHTTPConnection", (_Guarded, HTTPConnection), {"pbp_allow": allow})
    sconn = type("GuardedHTTPSConnection", (_Guarded, HTTPSConnection), {"pbp_allow": allow})
    pool = type("GuardedHTTPConnectionPool", (HTTPConnectionPool,), {"ConnectionCls": conn})
    spool = type("GuardedHTTPSConnectionPool", (HTTPSConnectionPool,), {"ConnectionCls": sconn})
    return {"http": pool, "https": spool}


class GuardedAdapter(HTTPAdapter):
    """A requests transport adapter whose every new connection is checked
    (:func:`checked_addresses`) and made to the checked address; TLS still verifies the
    certificate against the URL's name."""

    def __init__(self, allow: PrivateHosts | None = None, **kwargs: Any) -> None:
        self.allow = allow or PrivateHosts()
        super().__init__(**kwargs)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _pool_classes(self.allow)

    def send(self, request: PreparedRequest, stream: bool = False, timeout: Any = None,
             verify: bool | str = True, cert: Any = None,
             proxies: Mapping[str, str] | None = None) -> Response:
        """As HTTPAdapter's, never through a proxy (it would resolve names unchecked)."""
        return super().send(request, stream=stream, timeout=timeout, verify=verify, cert=cert,
                            proxies=None)

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "allow": self.allow}


def guard(session: Any, allow: PrivateHosts | None = None, **adapter_kwargs: Any) -> Any:
    """Mount a :class:`GuardedAdapter` on *session* for http and https; returns it."""
    adapter = GuardedAdapter(allow, **adapter_kwargs)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session

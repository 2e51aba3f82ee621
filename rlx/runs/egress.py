"""The only way the worker reaches a model endpoint a visitor brought: every connection checked when it is made.

Checking the endpoint's name when the form is sent is not enough: a name can answer a public address then and
10.0.0.5 or 127.0.0.1 a second later, when the model client resolves it again (DNS re-pointing). So the worker's
model calls (the /models check, and litellm's calls for terminus-2) go through httpx clients whose connections
are opened here: the host is resolved once, every address it answers is judged, and the socket is opened to the
judged address itself. TLS still names the host (SNI and certificate check) and Host stays the host, because
httpcore does both from the URL, not from the address we connect to.

Why written here rather than taken from a library: the DNS-pinning httpx transports on PyPI (httpx-secure 2.0,
egressweave 0.1) are async-only (the /models check is sync), resolve with the system resolver only (tests steer
the answers with a DNS server of their own, RLX_MODEL_DNS), and httpx-secure opens a TCP probe to an address it
then refuses. advocate (requests only) is unmaintained since 2020.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass

import httpcore
import httpx

DNS_TIMEOUT = 5.0
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_METADATA = ipaddress.ip_address("169.254.169.254")


class ModelError(ValueError):
    """One sentence about the endpoint; `field` names the run form's field it is about (the form shows it there)."""

    def __init__(self, message: str, field: str = "endpoint"):
        super().__init__(message)
        self.field = field


class EgressRefused(ModelError):
    """A connection to a visitor's endpoint was refused before a byte was sent; one sentence saying why."""


@dataclass(frozen=True)
class Egress:
    """Where the worker may connect: public addresses only, plus loopback when the operator allowed it (tests).
    `nameserver` (ip, port) asks that DNS server rather than the system's resolver."""

    allow_loopback: bool = False
    nameserver: tuple[str, int] | None = None

    def resolve(self, host: str, port: int) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        try:
            return [ipaddress.ip_address(host.strip("[]"))]
        except ValueError:
            pass
        addresses = _ask_nameserver(host, self.nameserver) if self.nameserver else _ask_system(host, port)
        if not addresses:
            raise ModelError(f"The endpoint's host {host!r} does not resolve.")
        return list(dict.fromkeys(addresses))

    def why_refused(self, address) -> str | None:
        """None when the worker may connect to `address`, else what kind of address it is."""
        if isinstance(address, ipaddress.IPv6Address):
            embedded = address.ipv4_mapped or (address in _NAT64 and ipaddress.IPv4Address(address.packed[-4:]))
            if embedded:
                return self.why_refused(embedded)
        if address.is_loopback:
            return None if self.allow_loopback else "a loopback address"
        if address == _METADATA:
            return "the cloud metadata address"
        if address.is_global and not address.is_multicast:
            return None
        for kind, flag in (("an unspecified address", address.is_unspecified),  # 0.0.0.0 reaches this machine
                           ("a link-local address", address.is_link_local),
                           ("a multicast address", address.is_multicast), ("a reserved address", address.is_reserved),
                           ("a private address", address.is_private)):
            if flag:
                return kind
        return "a reserved address"

    def admit(self, host: str, port: int) -> list[str]:
        """The addresses to connect to, in order; EgressRefused when any address the name answers is not public
        (a name that answers one private address among public ones is refused whole)."""
        addresses = self.resolve(host, port)
        for address in addresses:
            kind = self.why_refused(address)
            if kind and str(address) == host.strip("[]"):
                raise EgressRefused(f"The model endpoint's address {address} is {kind}; only public addresses are "
                                    f"allowed, so nothing was sent.")
            if kind:
                raise EgressRefused(f"The model endpoint's host {host} resolved to {address}, {kind}, when the worker "
                                    f"connected to it; only public addresses are allowed, so nothing was sent.")
        return [str(a) for a in addresses]


def _ask_system(host: str, port: int):
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise ModelError(f"The endpoint's host {host!r} does not resolve.") from None
    return [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]


def _ask_nameserver(host: str, nameserver: tuple[str, int]):
    import dns.exception
    import dns.resolver

    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers, resolver.port, resolver.lifetime = [nameserver[0]], nameserver[1], DNS_TIMEOUT
    addresses = []
    for kind in ("A", "AAAA"):
        try:
            addresses += [ipaddress.ip_address(r.address) for r in resolver.resolve(host, kind, search=False)]
        except (dns.resolver.NoAnswer, dns.resolver.NXDOMAIN):
            continue
        except dns.exception.DNSException as exc:
            raise ModelError(f"The endpoint's host {host!r} could not be resolved ({type(exc).__name__}).") from None
    return addresses


class _GuardedBackend(httpcore.NetworkBackend):
    def __init__(self, egress: Egress):
        self.egress, self.inner = egress, httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        last_error = None
        for address in self.egress.admit(host, port):
            try:
                return self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:  # the next address the name answered, as a resolver would
                last_error = exc
        raise last_error

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class _AsyncGuardedBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, egress: Egress):
        self.egress, self.inner = egress, httpcore.AnyIOBackend()

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        import anyio.to_thread

        last_error = None
        for address in await anyio.to_thread.run_sync(self.egress.admit, host, port):
            try:
                return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:
                last_error = exc
        raise last_error

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


# httpx 0.28 takes no network backend, so each transport's pool (`_pool`, the one its handle_request uses) is
# rebuilt with ours; tests/runs/test_model_egress.py goes red if a new httpx stops using it.
class _GuardedTransport(httpx.HTTPTransport):
    def __init__(self, egress: Egress):
        super().__init__(trust_env=False)
        self._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(trust_env=False),
                                             network_backend=_GuardedBackend(egress))


class _AsyncGuardedTransport(httpx.AsyncHTTPTransport):
    def __init__(self, egress: Egress):
        super().__init__(trust_env=False)
        self._pool = httpcore.AsyncConnectionPool(ssl_context=httpx.create_ssl_context(trust_env=False),
                                                  network_backend=_AsyncGuardedBackend(egress))


def guarded_client(egress: Egress, **kwargs) -> httpx.Client:
    """An httpx client (no proxies from the environment: a proxy would resolve the name itself)."""
    return httpx.Client(transport=_GuardedTransport(egress), trust_env=False, **kwargs)


def guarded_async_client(egress: Egress, **kwargs) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=_AsyncGuardedTransport(egress), trust_env=False, **kwargs)


def route_litellm_through(egress: Egress, served=None) -> None:
    """Make every litellm call in this process (a work horse: one job) connect through the guard. litellm hands
    these sessions to the OpenAI client it builds for `openai/` models, in place of its own (aiohttp) transport.
    `served` (rlx/runs/router_prices.py ServedBy) notes each answer's headers: which provider the router used."""
    import litellm

    if served is None:
        litellm.client_session = guarded_client(egress)
        litellm.aclient_session = guarded_async_client(egress)
        return

    def note(response: httpx.Response) -> None:
        if response.status_code == 200:  # an answer the model was paid for, not a refusal
            served.note(response.headers)

    async def note_async(response: httpx.Response) -> None:
        note(response)

    litellm.client_session = guarded_client(egress, event_hooks={"response": [note]})
    litellm.aclient_session = guarded_async_client(egress, event_hooks={"response": [note_async]})


def loopback_allowed(app) -> bool:
    """Tests point runs at a model stand-in on 127.0.0.1; nothing a visitor sends can turn this on."""
    return bool(app.config.get("RLX_ALLOW_LOOPBACK_MODELS")) or os.environ.get("RLX_ALLOW_LOOPBACK_MODELS") == "1"


def egress_for(app) -> Egress:
    """The rules of this app's configuration (RLX_MODEL_DNS, and the tests' loopback switch)."""
    return Egress(allow_loopback=loopback_allowed(app), nameserver=app.config["RLX"].model_dns)

"""A stand-in DNS server on 127.0.0.1 (UDP), speaking real DNS wire format (dnspython builds the answers).

It plays the attacker's name server in a DNS re-pointing attack: `answer(name, first, then, ...)` scripts the A
records a name answers, one step per A query, the last step repeating, with a TTL of 0 so nobody may cache them.
AAAA queries answer no records. `queries` logs (name, type) in the order asked. The app is pointed at it with
RLX_MODEL_DNS=127.0.0.1:<port>.
"""

from __future__ import annotations

import socket
import threading

import dns.exception
import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset


class DnsStandIn:
    def __init__(self):
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.settimeout(0.2)
        self._steps: dict[str, list[list[str]]] = {}
        self._served: dict[str, int] = {}
        self.queries: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def address(self) -> str:
        return "127.0.0.1:{}".format(self._socket.getsockname()[1])

    def answer(self, name: str, *steps: list[str]) -> None:
        with self._lock:
            self._steps[name.rstrip(".").lower()] = [list(s) for s in steps]
            self._served[name.rstrip(".").lower()] = 0

    def start(self) -> "DnsStandIn":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(5)
        self._socket.close()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                wire, peer = self._socket.recvfrom(4096)
            except TimeoutError:
                continue
            try:
                query = dns.message.from_wire(wire)
            except dns.exception.DNSException:
                continue
            self._socket.sendto(self._reply(query).to_wire(), peer)

    def _reply(self, query: dns.message.Message) -> dns.message.Message:
        reply = dns.message.make_response(query)
        question = query.question[0]
        name = question.name.to_text().rstrip(".").lower()
        kind = dns.rdatatype.to_text(question.rdtype)
        with self._lock:
            self.queries.append((name, kind))
            steps = self._steps.get(name)
            if steps is None:
                reply.set_rcode(dns.rcode.NXDOMAIN)
                return reply
            if kind != "A":
                return reply  # NOERROR with no records: the name has no IPv6 address
            step = steps[min(self._served[name], len(steps) - 1)]
            self._served[name] += 1
        reply.answer.append(dns.rrset.from_text_list(question.name, 0, "IN", "A", step))
        return reply

"""Protocol-sensitivity suites of the arena (CausalArena paper section 5.3, appendix A.2):
``arena-samplesize`` (observation-only, n from 100 to 10,000) and ``arena-protocols`` (six
intervention protocols), both on the same d = 30 subset of the synthetic pool."""

from causalarena.generator.protocols.protocols import PROTOCOLS, Protocol, protocol_spec
from causalarena.generator.protocols.suites import N_GRID, SUITES, ProtocolSuite, get_suite

__all__ = [
    "N_GRID",
    "PROTOCOLS",
    "SUITES",
    "Protocol",
    "ProtocolSuite",
    "get_suite",
    "protocol_spec",
]

"""TLS for replayed HTTPS: one self-signed certificate per process, and TLS done in memory.

A replayed ``https://`` site is answered by webdojo itself, so TLS has to end here. The
certificate names no one in particular: replay contexts are created with Playwright's
``ignore_https_errors``, which only those contexts get (all their traffic is answered
locally, none leaves the machine). The key is made when the first HTTPS connection arrives
and lives in memory; its files exist only while ``ssl`` loads them.

``TlsSession`` runs the server side of one connection over memory buffers (``ssl.MemoryBIO``)
instead of ``loop.start_tls``: the bytes of the client's hello may already have arrived with
the proxy's handshake, and memory buffers take them as they come.
"""

from __future__ import annotations

import datetime
import functools
import ssl
import tempfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

TLS_RECORD_HANDSHAKE = 0x16  # the first byte of a TLS client hello; never of an HTTP request
_READ_CHUNK = 65536


@functools.cache
def server_context() -> ssl.SSLContext:
    """The process's server-side context: a fresh P-256 key, HTTP/1.1 offered by ALPN."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webdojo replay")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("*")]), critical=False)
        .sign(key, hashes.SHA256())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.set_alpn_protocols(["http/1.1"])  # never h2: the replay speaks HTTP/1.1
    with tempfile.TemporaryDirectory(prefix="webdojo-tls-") as tmp:
        cert_file, key_file = Path(tmp, "cert.pem"), Path(tmp, "key.pem")
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        context.load_cert_chain(cert_file, key_file)
    return context


class TlsClosed(Exception):
    """The client ended the TLS session, or broke it."""


class TlsSession:
    """The server side of one TLS connection: ``receive`` ciphertext, get plaintext and the
    bytes to send back; ``send`` plaintext, get ciphertext."""

    def __init__(self) -> None:
        self._in = ssl.MemoryBIO()
        self._out = ssl.MemoryBIO()
        self._tls = server_context().wrap_bio(self._in, self._out, server_side=True)
        self._ready = False

    def receive(self, data: bytes) -> tuple[bytes, bytes]:
        """(plaintext received, ciphertext to write back). Raises ``TlsClosed``."""
        self._in.write(data)
        plain = bytearray()
        try:
            if not self._ready:
                self._tls.do_handshake()
                self._ready = True
            while True:
                chunk = self._tls.read(_READ_CHUNK)
                if not chunk:
                    raise TlsClosed("the client closed the TLS session")
                plain += chunk
        except ssl.SSLWantReadError:
            pass  # everything that arrived is read; the rest has not come yet
        except (ssl.SSLZeroReturnError, ssl.SSLError) as exc:
            raise TlsClosed(str(exc)) from exc
        return bytes(plain), self._out.read()

    def send(self, data: bytes) -> bytes:
        self._tls.write(data)
        return self._out.read()

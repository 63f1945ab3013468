"""The viewer's local HTTP server: the standard library's threading server on 127.0.0.1.

Safety model (docs/view.md): the server binds the loopback address only; every request must
carry the random token the command prints in the URL (other local users can connect to the
port but cannot guess it; compared in constant time); the ``Host`` header must name the
loopback address and this port (a web page elsewhere cannot reach it by DNS rebinding); the
page, its scripts and styles are fixed files of the package, never paths from the request; and
the asset endpoint serves only assets of the opened file, looked up by their sha256 name.
Responses forbid caching, MIME sniffing and sending the URL (with its token) as a referrer.
Nothing is written, and nothing is fetched from anywhere but this server.

Connections are bounded too: at most :data:`MAX_CONNECTIONS` are served at once (one thread
each; one more is answered 503 at once, without a thread), and every read on a connection
times out after :data:`IDLE_SECONDS`, so idle sockets opened by anyone on the machine cannot
pile up threads or hold the page's out.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from brson.errors import BrsonError
from brson.view import page
from brson.view.data import ViewData, ViewError

#: The only address the server listens on.
HOST = "127.0.0.1"
#: Connections served at once (a browser opens about six to one host).
MAX_CONNECTIONS = 32
#: Seconds a connection may stay silent (before its request, or kept alive between two).
IDLE_SECONDS = 20.0
#: How long closing the server waits for the threads of the connections it ended.
CLOSE_WAIT_SECONDS = 5.0
#: What a connection over :data:`MAX_CONNECTIONS` gets before it is closed.
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
    b"Content-Length: 29\r\nConnection: close\r\n\r\ntoo many connections, retry\r\n"
)
#: The page's Content Security Policy: its own scripts only, no other origin for anything.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self' blob:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
#: The package files the page loads, by URL path (the only files the server reads).
STATIC = {
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
    "/static/vendor/three.bundle.min.js": (page.VENDOR, "text/javascript; charset=utf-8"),
}


class ViewServer(ThreadingHTTPServer):
    """One opened archive served to one browser session (token)."""

    #: The kernel's queue of connections not yet accepted (socketserver's default is 5): a
    #: burst beyond it has its handshakes dropped and retried a second and more later, so a
    #: client over the bound waited that long for its 503 instead of getting it at once.
    request_queue_size = 128

    def __init__(
        self,
        data: ViewData,
        port: int = 0,
        token: str | None = None,
        *,
        max_connections: int = MAX_CONNECTIONS,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self.data = data
        self.token = token or secrets.token_urlsafe(24)
        self.idle_seconds = idle_seconds
        self._slots = threading.BoundedSemaphore(max_connections)
        #: The connections being served and their threads, so that closing the server ends
        #: them before the interpreter does (a handler thread woken during interpreter
        #: shutdown, by a browser closing its keep-alive connection, died with a traceback).
        self._serving: dict[threading.Thread, Any] = {}
        self._serving_lock = threading.Lock()
        super().__init__((HOST, port), Handler)
        self.port = int(self.server_address[1])
        self.allowed_hosts = {f"{HOST}:{self.port}", f"localhost:{self.port}"}

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection while one of the slots is free; else 503 and close.

        The slot is given back exactly once, by whichever of this method and the thread gets
        there first: a Ctrl-C landing while the thread starts (the thread runs, this method
        sees KeyboardInterrupt) used to give it back twice, and the ValueError of the second
        release replaced the KeyboardInterrupt, which the server then swallowed (it kept
        serving) while the thread died with a traceback."""
        if not self._slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        lock = threading.Lock()
        held = [True]

        def release() -> None:
            with lock:
                if held[0]:
                    held[0] = False
                    self._slots.release()

        def serve() -> None:
            with self._serving_lock:
                self._serving[threading.current_thread()] = request
            try:
                self.process_request_thread(request, client_address)
            finally:
                with self._serving_lock:
                    self._serving.pop(threading.current_thread(), None)
                release()

        thread = threading.Thread(target=serve, name="brson-view-connection", daemon=True)
        try:
            thread.start()
        except BaseException:
            release()
            raise

    def server_close(self) -> None:
        """Stop listening, end every open connection (a keep-alive one waits for its next
        request) and wait a moment for their threads, so none outlives the server."""
        super().server_close()
        with self._serving_lock:
            serving = list(self._serving.items())
        for _, request in serving:
            with contextlib.suppress(OSError):
                request.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + CLOSE_WAIT_SECONDS
        for thread, _ in serving:
            thread.join(max(0.0, deadline - time.monotonic()))

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line, never a traceback; nothing when the browser simply went away."""
        error = sys.exc_info()[1]
        if error is None or isinstance(error, ConnectionError | TimeoutError):
            return
        sys.stderr.write(f"brson view: {type(error).__name__}: {error}\n")

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.token}"


class Handler(BaseHTTPRequestHandler):
    server: ViewServer
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        """Every read and write on the connection times out."""
        super().setup()
        self.connection.settimeout(self.server.idle_seconds)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the terminal shows the URL and errors, not every request."""

    def do_HEAD(self) -> None:
        self._refuse(405, "read-only: GET only")

    def do_POST(self) -> None:
        self._refuse(405, "read-only: GET only")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_POST

    def do_GET(self) -> None:
        host = self.headers.get("Host")
        if host not in self.server.allowed_hosts:
            self._refuse(403, "wrong Host header")
            return
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        token = query.get("token", "")
        if not hmac.compare_digest(token.encode(), self.server.token.encode()):
            self._refuse(403, "missing or wrong token")
            return
        try:
            self._route(parts.path, query)
        except ConnectionError:  # the browser left (a closed tab, a cancelled request)
            self.close_connection = True
        except ViewError as exc:
            self._json({"error": exc.message}, 404)
        except BrsonError as exc:
            self._json({"error": exc.message}, 422)
        except Exception as exc:  # one line on the terminal, a JSON error to the page
            sys.stderr.write(
                f"brson view: {self.path.split('?')[0]}: {type(exc).__name__}: {exc}\n"
            )
            self._json({"error": f"internal error: {type(exc).__name__}"}, 500)

    def _route(self, path: str, query: dict[str, str]) -> None:
        data = self.server.data
        if path == "/":
            body = page.render_server(self.server.token).encode()
            self._send(200, body, "text/html; charset=utf-8")
            return
        if path in STATIC:
            name, mime = STATIC[path]
            self._send(200, page.static_file(name), mime)
            return
        if path.startswith("/api/asset/"):
            with data.lock:
                blob, mime = data.asset(path.removeprefix("/api/asset/"))
            self._send(200, blob, mime)
            return
        if path == "/api/glb":
            with data.lock:
                glb = data.glb(query.get("key", "0"))
            self._send(200, glb, "model/gltf-binary")
            return
        if path == "/api/search":
            self._json(data.search(query.get("q", ""), query.get("mode", "all")))
            return
        if path == "/api/findings":
            self._json(data.findings())
            return
        key = query.get("key", "0")
        # These read the worker's copy of the tree, under its own lock.
        if path == "/api/incoming":
            self._json(data.incoming(key))
            return
        if path == "/api/target":
            self._json(data.target(query.get("id", "").lower()))
            return
        with data.lock:
            if path == "/api/info":
                result: Any = data.info()
            elif path == "/api/children":
                result = data.children(key, offset=_int(query.get("offset", "0")))
            elif path == "/api/reveal":
                result = data.reveal(key)
            elif path == "/api/slot":
                result = data.detail(key)
            elif path == "/api/flux":
                result = data.flux()
            else:
                raise ViewError(f"no such page: {path[:80]}")
        self._json(result)

    # -- responses ------------------------------------------------------------------------
    def _json(self, value: Any, status: int = 200) -> None:
        body = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
        self._send(status, body, "application/json; charset=utf-8")

    def _refuse(self, status: int, reason: str) -> None:
        self._send(status, reason.encode() + b"\n", "text/plain; charset=utf-8")

    def _send(self, status: int, body: bytes, mime: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", mime)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", CSP)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def _int(text: str) -> int:
    if not text.isdigit() or len(text) > 9:
        raise ViewError(f"not a count: {text[:20]!r}")
    return int(text)

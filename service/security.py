"""The gate in front of every request: Host, token, Origin, CSRF and body size on the way in;
security headers on the way out.

It is plain ASGI, so it sees WebSocket handshakes as well as HTTP requests, and it counts the
bytes of a body as they arrive, so a chunked upload is stopped at the limit instead of being
read whole. A refused request's body is still read (up to a bound) and thrown away before
the answer goes out: a client that sends its whole body before reading, as Python's urllib
does, then reads the error envelope instead of a connection reset.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import status_for
from .messages import error_in, pick_language
from .settings import LOOPBACK_HOSTS, Settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_HEADER = "x-taicam-csrf"  # any value; a cross-site page cannot send a custom header without a CORS preflight
TOKEN_COOKIE = "taicam_token"
# POSTs that compute an answer and store nothing: the Origin check applies, the CSRF rule does not.
COMPUTE_ONLY_PATHS = ("/v1/score", "/v1/detect", "/v1/waits")
MULTIPART_OVERHEAD_BYTES = 64 * 1024  # boundaries and part headers around an upload of the full size
# A refused body is read and dropped so the client can read the answer; past these bounds the
# connection is closed instead (a client streaming gigabytes gets a reset, the server stays small).
MAX_DRAIN_BYTES = 1024 * 1024 * 1024
MAX_DRAIN_SECONDS = 30.0
BODY_CHUNK_TIMEOUT_S = 30.0  # a client that stops sending mid-body gets 408 instead of holding a worker


def content_security_policy(host: str) -> str:
    """No inline script, nothing from elsewhere; the WebSocket back to this host is allowed."""
    return "; ".join(
        (
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self' 'unsafe-inline'",  # the pages set style attributes; styles cannot run script
            "img-src 'self' data: blob:",
            "media-src 'self' blob:",
            f"connect-src 'self' ws://{host} wss://{host}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


def tokens_match(offered: str | None, token: str) -> bool:
    """Constant-time comparison on bytes: any text the client sends is compared, never a 500."""
    if not offered:
        return False
    return secrets.compare_digest(offered.encode("utf-8", "surrogatepass"), token.encode("utf-8"))


def host_name(netloc: str) -> str:
    """The host of a ``Host`` header or an origin's netloc, without port, lower case."""
    netloc = netloc.strip().lower()
    if netloc.startswith("["):  # [::1]:8000
        return netloc[1 : netloc.find("]")] if "]" in netloc else netloc
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


class Refused(Exception):
    """The gate's answer before the app sees the request; its status comes from ``STATUS_BY_CODE``.

    Not a ``TaicamError``: it is raised into the app's body reads, where a ``ValueError`` could be
    taken for a malformed body instead of ending the request.
    """

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.status = status_for(code)
        self.code = code
        self.message = message


@dataclass
class _BodyState:
    received: int = 0
    done: bool = False
    refused: Refused | None = None
    response_started: bool = False


class SecurityGate:
    def __init__(self, app: ASGIApp, settings: Settings):
        self.app = app
        self.settings = settings
        self.allowed_hosts = {h.lower() for h in (*LOOPBACK_HOSTS, *settings.allowed_hosts)}
        self.body_limit = settings.max_upload_bytes + MULTIPART_OVERHEAD_BYTES

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    # --- the checks -------------------------------------------------------------------------
    def _refusal(self, scope: Scope, headers: Headers) -> Refused | None:
        host = headers.get("host", "")
        if "*" not in self.allowed_hosts and host_name(host) not in self.allowed_hosts:
            return Refused("bad_host", f"this taicam does not answer to the host {host!r} (see --allow-host)")
        if self.settings.token and not tokens_match(self._offered_token(scope, headers), self.settings.token):
            return Refused("unauthorized", "this taicam is on the LAN: open the link with its token (see the QR code)")
        unsafe = scope["type"] == "websocket" or scope["method"] not in SAFE_METHODS
        origin = headers.get("origin")
        if unsafe and origin is not None and not self._same_origin(origin, host):
            return Refused("bad_origin", f"requests from {origin!r} may not change anything here")
        if scope["type"] == "http" and unsafe and not scope["path"].startswith(COMPUTE_ONLY_PATHS):
            media_type = headers.get("content-type", "").split(";")[0].strip().lower()
            if media_type != "application/json" and CSRF_HEADER not in headers:
                return Refused("csrf", f"a request that changes something needs a JSON body or the {CSRF_HEADER} header")
        return None

    def _same_origin(self, origin: str, host: str) -> bool:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.netloc:
            return False  # "null" and anything odd
        default_port = ":443" if parts.scheme in ("https", "wss") else ":80"
        netloc, host = parts.netloc.lower().removesuffix(default_port), host.lower().removesuffix(default_port)
        return netloc == host and ("*" in self.allowed_hosts or host_name(netloc) in self.allowed_hosts)

    @staticmethod
    def _offered_token(scope: Scope, headers: Headers) -> str | None:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if query.get("token"):
            return query["token"][0]
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except CookieError:  # a malformed header counts as no cookie
            cookie = SimpleCookie()
        if TOKEN_COOKIE in cookie:
            return cookie[TOKEN_COOKIE].value
        bearer = headers.get("authorization", "")
        return bearer.removeprefix("Bearer ").strip() or None

    # --- HTTP ---------------------------------------------------------------------------------
    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        state = _BodyState()
        refused = self._refusal(scope, headers)
        length = headers.get("content-length", "")
        if refused is None and length.isascii() and length.isdigit() and int(length) > self.body_limit:
            refused = self._too_large()
        if refused is not None:
            if headers.get("expect", "").lower() != "100-continue":  # else the client has sent nothing yet
                await self._drain(receive, state)
            await self._answer(send, scope, headers, refused, close=not state.done)
            return

        async def counted_receive() -> Message:
            if state.done:
                return await receive()  # after the body: disconnect notices for streaming responses
            try:
                message = await asyncio.wait_for(receive(), BODY_CHUNK_TIMEOUT_S)
            except TimeoutError:
                state.refused = Refused("timeout", f"no body bytes for {BODY_CHUNK_TIMEOUT_S:g} s")
                state.done = True
                raise state.refused from None
            if message["type"] == "http.request":
                state.received += len(message.get("body", b""))
                state.done = not message.get("more_body", False)
                if state.received > self.body_limit:
                    state.refused = self._too_large()
                    raise state.refused
            else:
                state.done = True
            return message

        async def guarded_send(message: Message) -> None:
            if state.refused is not None:
                return  # the app answered an aborted body (often as a 400): the refusal goes out instead
            if message["type"] == "http.response.start":
                state.response_started = True
                message = {**message, "headers": [*message.get("headers", []), *self._extra_headers(scope, headers)]}
            await send(message)

        with contextlib.suppress(Refused):  # raised into the app by counted_receive; answered below
            await self.app(scope, counted_receive, guarded_send)
        if state.refused is not None and not state.response_started:
            if state.refused.status == 413:
                await self._drain(receive, state)
            await self._answer(send, scope, headers, state.refused, close=not state.done)

    def _too_large(self) -> Refused:
        return Refused("too_large", f"upload over the {self.settings.max_upload_mb:g} MB limit")

    @staticmethod
    async def _drain(receive: Receive, state: _BodyState) -> None:
        deadline = time.monotonic() + MAX_DRAIN_SECONDS
        drained = 0
        while not state.done and drained < MAX_DRAIN_BYTES:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                return
            if message["type"] != "http.request":
                state.done = True
                return
            drained += len(message.get("body", b""))
            state.done = not message.get("more_body", False)

    async def _answer(self, send: Send, scope: Scope, headers: Headers, refused: Refused, close: bool) -> None:
        lang = pick_language(
            parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang", [None])[0] or headers.get("accept-language")
        )
        message, details = error_in(refused.code, refused.message, {}, lang)
        body = json.dumps({"error": {"code": refused.code, "message": message, "details": details}}).encode()
        raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if close:
            raw.append((b"connection", b"close"))
        raw += self._extra_headers(scope, headers, with_cookie=False)
        await send({"type": "http.response.start", "status": refused.status, "headers": raw})
        await send({"type": "http.response.body", "body": body})

    def _extra_headers(self, scope: Scope, headers: Headers, with_cookie: bool = True) -> list[tuple[bytes, bytes]]:
        host = headers.get("host", "") if host_name(headers.get("host", "")) in self.allowed_hosts else "localhost"
        policy = content_security_policy(host)  # /docs too: its Swagger UI is served from here, no inline script
        extra = [
            (b"content-security-policy", policy.encode("latin-1")),
            (b"x-content-type-options", b"nosniff"),
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"no-referrer"),  # the token in a page's URL never leaves in a Referer
        ]
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if with_cookie and self.settings.token and query.get("token"):
            secure = "; Secure" if scope.get("scheme") == "https" else ""
            cookie = f"{TOKEN_COOKIE}={self.settings.token}; HttpOnly; SameSite=Strict; Path=/{secure}"
            extra.append((b"set-cookie", cookie.encode("latin-1")))
        return extra

    # --- WebSocket ----------------------------------------------------------------------------
    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = self._refusal(scope, Headers(scope=scope))
        if refused is None:
            await self.app(scope, receive, send)
            return
        message: dict[str, Any] = dict(await receive())
        if message["type"] == "websocket.connect":
            # Closing before accepting answers the handshake with HTTP 403; 4401/4403 say why to clients that look.
            await send({"type": "websocket.close", "code": 4401 if refused.status == 401 else 4403, "reason": refused.code})

"""A scripted OpenAI-compatible HTTP server for tests (127.0.0.1, a free port).

It speaks the wire format of `POST /v1/chat/completions`, `POST /v1/embeddings` and
`GET /v1/models`. Replies come from a ``responder(request_json) -> Reply`` callable, so a
test can answer by looking at the prompt; faults (HTTP status with headers, delays,
dropped connections, empty or reasoning-only content) are part of a ``Reply``. Every
request is recorded, so tests can count calls.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = "ok"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error: str | None = None  # message of an error body (status >= 400)
    delay_s: float = 0.0
    drop: bool = False  # close the connection without answering
    reasoning: str | None = None
    finish_reason: str = "stop"
    raw: bytes | None = None  # send this body as is (broken JSON, a cut-off reply …)


Responder = Callable[[dict[str, Any]], Reply]


def prompt_text(request: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.get("messages", []))


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out and hung up is a scripted fault, not a server problem:
        # no traceback on stderr (where it would look like afr's).
        return


class FakeOpenAI:
    def __init__(self, responder: Responder | None = None, *, embed_dim: int = 16,
                 embed_reply: Callable[[dict[str, Any]], Reply | None] | None = None
                 ) -> None:
        self.responder: Responder = responder or (lambda request: Reply())
        self.embed_dim = embed_dim
        # a fault for an embeddings request (its delay, status and error), None: vectors
        self.embed_reply = embed_reply or (lambda request: None)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                return

            def _send(self, status: int, body: dict[str, Any],
                      headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                self._send(200, {"object": "list", "data": [{"id": "fake-model",
                                                             "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                request["_path"] = self.path
                with outer._lock:
                    outer.requests.append(request)
                if self.path.endswith("/embeddings"):
                    self._embeddings(request)
                    return
                reply = outer.responder(request)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if reply.raw is not None:
                    self.close_connection = True
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(reply.raw)
                    return
                if reply.status >= 400:
                    self._send(reply.status, {"error": {"message": reply.error or "error",
                                                        "type": "test"}}, reply.headers)
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                if reply.reasoning is not None:
                    message["reasoning_content"] = reply.reasoning
                prompt_tokens = len(prompt_text(request).split())
                completion_tokens = len((reply.content or "").split())
                self._send(200, {
                    "id": "chatcmpl-test", "object": "chat.completion",
                    "created": int(time.time()), "model": request.get("model", "fake-model"),
                    "choices": [{"index": 0, "message": message,
                                 "finish_reason": reply.finish_reason}],
                    "usage": {"prompt_tokens": prompt_tokens,
                              "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens},
                }, reply.headers)

            def _embeddings(self, request: dict[str, Any]) -> None:
                fault = outer.embed_reply(request)
                if fault is not None:
                    time.sleep(fault.delay_s)
                    if fault.status >= 400:
                        self._send(fault.status, {"error": {"message": fault.error or "error",
                                                            "type": "test"}}, fault.headers)
                        return
                inputs = request.get("input", [])
                inputs = [inputs] if isinstance(inputs, str) else inputs
                data = []
                for i, text in enumerate(inputs):
                    vec = [0.0] * outer.embed_dim
                    for word in str(text).lower().split():
                        vec[zlib.crc32(word.encode()) % outer.embed_dim] += 1.0
                    data.append({"object": "embedding", "index": i, "embedding": vec})
                self._send(200, {"object": "list", "data": data,
                                 "model": request.get("model", "fake-embed"),
                                 "usage": {"prompt_tokens": 1, "total_tokens": 1}})

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["_path"].endswith("/chat/completions")]

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

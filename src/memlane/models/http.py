"""What the two HTTP chat adapters (`OpenAIModel`, `AnthropicModel`) share: the endpoint, the key
and its environment variable, the one `Transport`, and the call itself (one POST, answered whole
or streamed as server-sent events). Each adapter says only what differs: the URL, the body it
sends, the headers, and how it reads a reply."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from memlane.models.base import ModelReply, iter_sse
from memlane.models.transport import Transport


class HttpChatModel:
    """A chat model behind an HTTP API; subclasses set the class constants and the hooks."""

    DEFAULT_BASE_URL: ClassVar[str]
    API_KEY_ENV: ClassVar[str]

    model: str
    base_url: str
    api_key: str | None
    name: str

    def _connect(self, model: str, base_url: str, api_key: str | None, *, provider: str,
                 timeout: float, max_retries: int, backoff: float) -> None:
        """The fields every adapter sets in `__init__` (after checking `model`)."""
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get(self.API_KEY_ENV)
        self._official = self.base_url == self.DEFAULT_BASE_URL
        self._endpoint = Transport(
            provider=provider, timeout=timeout, max_retries=max_retries, backoff=backoff,
            key_hint=f"api_key= or {self.API_KEY_ENV}",
        )

    @property
    def missing_key(self) -> str | None:
        """The environment variable to set when this model needs an API key and has none (the
        official endpoint); None when calls can go ahead. Lets a program say so at startup
        rather than at the first message."""
        return self.API_KEY_ENV if self._official and not self.api_key else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r}, base_url={self.base_url!r})"

    def complete(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> ModelReply:
        body = self.request_body(
            messages, tools=tools, json_schema=json_schema, max_tokens=max_tokens,
            stream=on_token is not None,
        )
        url, headers = self._url(), self._headers()
        json_mode = json_schema is not None
        if on_token is None:
            return self._read(self._endpoint.post_json(url, body, headers), json_mode)
        with self._endpoint.open_stream(url, body, headers) as response:
            return self._read_stream(iter_sse(response, self._endpoint.provider), on_token,
                                     json_mode)

    # what each adapter says ---------------------------------------------------------------------
    def request_body(
        self,
        messages: Sequence[dict[str, Any]],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        stream: bool = False,
    ) -> dict[str, Any]:
        raise NotImplementedError

    def _url(self) -> str:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def _read(self, data: Any, json_mode: bool) -> ModelReply:
        raise NotImplementedError

    def _read_stream(self, events: Iterable[Any], on_token: Callable[[str], None],
                     json_mode: bool) -> ModelReply:
        raise NotImplementedError

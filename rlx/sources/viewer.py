"""Our own small client for the Hub's dataset viewer (datasets-server): /is-valid, /splits, /info, /first-rows,
/rows, /search, /filter and /statistics, all GET with query parameters, pages of at most 100 rows.

huggingface_hub hard-codes the viewer's address, so this client takes its base URL from the settings. Every call
has a timeout; a timeout, a refused connection or a 5xx becomes `Unavailable` (retry later), a 404 becomes
`RepoNotFound` (the viewer does not serve this dataset), and the Authorization header carries the visitor's token.
"""

from __future__ import annotations

from typing import Any

import httpx2

from rlx.sources.errors import AccessDenied, RepoNotFound, SourceError, Unavailable

PAGE_MAX = 100  # the viewer's own limit on `length`


class ViewerClient:
    def __init__(self, base_url: str, timeout: float = 10.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def describe(self) -> str:
        return f"the dataset viewer at {self.base_url}"

    def is_valid(self, dataset: str, token: str | None = None) -> dict:
        """{"viewer", "preview", "search", "filter", "statistics"}: what the viewer can do for this dataset."""
        return self._get("is-valid", {"dataset": dataset}, token)

    def splits(self, dataset: str, token: str | None = None) -> list[dict]:
        return list(self._get("splits", {"dataset": dataset}, token).get("splits") or [])

    def info(self, dataset: str, config: str, token: str | None = None) -> dict:
        return self._get("info", {"dataset": dataset, "config": config}, token).get("dataset_info") or {}

    def rows(self, dataset: str, config: str, split: str, offset: int, length: int = PAGE_MAX,
             token: str | None = None) -> dict:
        return self._get("rows", _page({"dataset": dataset, "config": config, "split": split}, offset, length), token)

    def search(self, dataset: str, config: str, split: str, query: str, offset: int = 0, length: int = PAGE_MAX,
               token: str | None = None) -> dict:
        params = _page({"dataset": dataset, "config": config, "split": split, "query": query[:200]}, offset, length)
        return self._get("search", params, token)

    def filter(self, dataset: str, config: str, split: str, where: str, offset: int = 0, length: int = PAGE_MAX,
               token: str | None = None) -> dict:
        params = _page({"dataset": dataset, "config": config, "split": split, "where": where[:1000]}, offset, length)
        return self._get("filter", params, token)

    def statistics(self, dataset: str, config: str, split: str, token: str | None = None) -> dict:
        return self._get("statistics", {"dataset": dataset, "config": config, "split": split}, token)

    def _get(self, route: str, params: dict, token: str | None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        what = f"the dataset viewer's /{route} for {params.get('dataset')}"
        try:
            response = httpx2.get(f"{self.base_url}/{route}", params=params, headers=headers, timeout=self.timeout)
        except httpx2.TimeoutException:
            raise Unavailable(f"{what} did not answer within {self.timeout:g} s.", retry_after=30) from None
        except httpx2.TransportError as exc:
            raise Unavailable(f"{what} could not be reached ({type(exc).__name__}).", retry_after=30) from None
        status = response.status_code
        if status >= 500:
            retry = response.headers.get("Retry-After", "")
            raise Unavailable(f"{what} answered {status} ({_message(response)}).",
                              retry_after=int(retry) if retry.isdigit() else 30)
        if status == 404:
            raise RepoNotFound(f"{what}: {_message(response)}.")
        if status in (401, 403):
            raise AccessDenied(f"{what}: {_message(response)}.")
        if status >= 400:
            raise SourceError(f"{what} refused the request ({status}: {_message(response)}).")
        try:
            return response.json()
        except ValueError:
            raise Unavailable(f"{what} answered something that is not JSON.", retry_after=30) from None


def _page(params: dict, offset: int, length: int) -> dict:
    """Offsets and lengths bounded as the viewer bounds them."""
    return {**params, "offset": max(0, int(offset)), "length": max(1, min(int(length), PAGE_MAX))}


def _message(response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:160] or response.reason_phrase
    error = body.get("error") if isinstance(body, dict) else None
    return str(error or response.reason_phrase)[:200]

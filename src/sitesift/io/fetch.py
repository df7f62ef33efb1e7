"""Fetching a page by URL for `sitesift clean URL`: urllib3 with a connect and read
timeout, a redirect limit, a size limit (the body is read in chunks and cut off past it,
never held whole first), and the charset left to the decoder from the Content-Type header
(`decode.decode_html`: header, BOM, meta, detection)."""

from __future__ import annotations

from dataclasses import dataclass

from sitesift.errors import InputError
from sitesift.io.http import looks_like_html, skip_reason

TIMEOUT_S = 20.0
MAX_BYTES = 32 * 1024 * 1024
MAX_REDIRECTS = 5
USER_AGENT = "sitesift (+https://github.com/; main-content extraction)"


@dataclass(frozen=True)
class Fetched:
    url: str           # after redirects
    data: bytes
    content_type: str | None


def is_url(value: str) -> bool:
    low = value[:8].lower()
    return low.startswith(("http://", "https://"))


def fetch(url: str, *, timeout: float = TIMEOUT_S, max_bytes: int = MAX_BYTES,
          max_redirects: int = MAX_REDIRECTS) -> Fetched:
    """The page at `url`; an InputError naming the URL and the reason when it cannot be
    had (network, status, size, not HTML)."""
    import urllib3

    http = urllib3.PoolManager(
        timeout=urllib3.Timeout(connect=timeout, read=timeout),
        retries=urllib3.Retry(total=max_redirects, connect=0, read=0, status=0,
                              redirect=max_redirects, raise_on_redirect=True),
        headers={"User-Agent": USER_AGENT, "Accept": "text/html,application/xhtml+xml,*/*;q=0.5"})
    try:
        response = http.request("GET", url, preload_content=False, redirect=True)
    except urllib3.exceptions.MaxRetryError as exc:
        reason: object = exc.reason or exc
        raise InputError(f"{url}: cannot fetch: {reason}") from None
    except urllib3.exceptions.HTTPError as exc:
        raise InputError(f"{url}: cannot fetch: {exc}") from None
    except ValueError as exc:  # a URL urllib3 cannot parse
        raise InputError(f"{url}: not a URL that can be fetched: {exc}") from None
    try:
        content_type = response.headers.get("Content-Type")
        if reason := skip_reason(response.status, content_type):  # the crawl's rule
            raise InputError(f"{url}: {reason}")
        length = response.headers.get("Content-Length")
        if length and length.isdigit() and int(length) > max_bytes:
            raise InputError(f"{url}: {int(length):,} bytes exceeds the limit of "
                             f"{max_bytes:,}")
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.stream(65536):
                size += len(chunk)
                if size > max_bytes:
                    raise InputError(f"{url}: more than {max_bytes:,} bytes (the limit)")
                chunks.append(chunk)
        except urllib3.exceptions.HTTPError as exc:
            raise InputError(f"{url}: the download broke off: {exc}") from None
        body = b"".join(chunks)
        if not content_type and not looks_like_html(body):
            raise InputError(f"{url}: no Content-Type and no markup at its start")
        final = response.geturl() or url
        return Fetched(str(final), body, content_type)
    finally:
        response.release_conn()

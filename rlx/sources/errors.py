"""What can go wrong when reading a source, as exceptions a view can turn into a status code."""


class SourceError(Exception):
    """Base class: a source could not answer."""

    status = 502


class RepoNotFound(SourceError):
    """The repository does not exist, or this visitor may not see it (private): the Hub answers both alike."""

    status = 404


class EntryNotFound(SourceError):
    """The repository exists but the path (or revision) does not."""

    status = 404


class RevisionNotFound(EntryNotFound):
    """The revision asked for is gone (a force-push): every path of it is missing, not just one."""


class AccessDenied(SourceError):
    """The repository is gated and this visitor's token has no grant (or there is no token)."""

    status = 403


class TooLarge(SourceError):
    """The file is over the size the caller asked for: a problem of that one file, not of the source."""

    status = 413


class Unavailable(SourceError):
    """The source is down, slow or rate-limiting us (any 5xx, 429, a cut connection, a timeout): an outage, never
    a fact about the file asked for. Try again after `retry_after` seconds."""

    status = 503

    def __init__(self, message: str, retry_after: int = 30):
        super().__init__(message)
        self.retry_after = retry_after

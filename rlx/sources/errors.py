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


class AccessDenied(SourceError):
    """The repository is gated and this visitor's token has no grant (or there is no token)."""

    status = 403


class Unavailable(SourceError):
    """The source is down, slow or rate-limiting us; try again after `retry_after` seconds."""

    status = 503

    def __init__(self, message: str, retry_after: int = 30):
        super().__init__(message)
        self.retry_after = retry_after

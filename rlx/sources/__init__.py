"""Where environments come from: the Hub, or a local folder laid out like it."""

from rlx.sources.base import FileEntry, RepoRecord, RepoType, Source
from rlx.sources.errors import (AccessDenied, EntryNotFound, RepoNotFound, RevisionNotFound, SourceError, TooLarge,
                                Unavailable)

__all__ = [
    "AccessDenied",
    "EntryNotFound",
    "FileEntry",
    "RepoNotFound",
    "RepoRecord",
    "RepoType",
    "RevisionNotFound",
    "Source",
    "SourceError",
    "TooLarge",
    "Unavailable",
    "app_source",
    "open_source",
]


def app_source() -> Source:
    """The source (the Hub, or a folder) of the app handling this request or job."""
    from flask import current_app

    return current_app.extensions["rlx.source"]


def open_source(config) -> Source:
    """The source the config names: a folder path, or `hub`."""
    if config.source == "hub":
        from rlx.sources.hub import HubSource
        from rlx.sources.viewer import ViewerClient

        source = HubSource(endpoint=config.hf_endpoint)
        source.viewer = ViewerClient(config.viewer_url)
        return source
    from rlx.sources.folder import FolderSource

    return FolderSource(config.source)

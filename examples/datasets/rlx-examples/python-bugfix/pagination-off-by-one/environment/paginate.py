"""Pagination helpers for the orders API.

Pages are numbered from 1. `per_page` is the maximum number of items on a page.
"""

from typing import Sequence, TypeVar

T = TypeVar("T")


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill; 0 items make 0 pages."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return total // per_page


def paginate(items: Sequence[T], page: int, per_page: int) -> list[T]:
    """The items on page `page`; a page past the end is empty."""
    if page < 0:
        raise ValueError("page must be at least 1")
    start = page * per_page
    return list(items[start:start + per_page])


def page_window(current: int, total_pages: int, width: int = 5) -> list[int]:
    """Page numbers to show in a pager: `width` consecutive pages around `current`,
    shifted so the window never runs past page 1 or `total_pages`."""
    if total_pages <= 0:
        return []
    first = max(1, current - width // 2)
    last = min(total_pages, first + width)
    first = max(1, last - width)
    return list(range(first, last))

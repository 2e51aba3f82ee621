"""What every template can use: the app's name, the theme, the header's search box."""

from __future__ import annotations

from flask import Flask

from rlx.web.format import compact_number, file_size, relative_date
from rlx.web.richtext import render_code, render_markdown


def init_context(app: Flask) -> None:
    app.jinja_env.filters["compact"] = compact_number
    app.jinja_env.filters["ago"] = relative_date
    app.jinja_env.filters["filesize"] = file_size
    app.jinja_env.filters["markdown"] = render_markdown
    app.jinja_env.filters["code"] = render_code
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True

    @app.context_processor
    def _globals():
        return {"app_name": "HF RL Explorer"}

"""The admin app's WSGI entry point: gunicorn admin_wsgi:app (or `rlx admin`). Never mounted in the public app."""

from rlx.admin import create_admin_app

app = create_admin_app()

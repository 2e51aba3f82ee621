"""gunicorn -k gevent wsgi:app"""

from rlx import create_app

app = create_app()

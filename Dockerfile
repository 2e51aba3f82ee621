# The HF RL Explorer Space: gunicorn (gevent) web + two RQ workers under `rlx serve --with-workers`, the storage
# bucket mounted at /data. Build from the repository root:  docker build -t rlx .
FROM python:3.12-slim

ENV PYTHONUNBUFFERED=1 \
    UV_PROJECT_ENVIRONMENT=/app/.venv \
    UV_PYTHON_DOWNLOADS=never \
    UV_COMPILE_BYTECODE=1 \
    UV_LINK_MODE=copy

RUN pip install --no-cache-dir "uv==0.13.9"
# DejaVu Sans draws the link-preview pictures (rlx/web/preview_image.py); without it Pillow's own font is used.
# bubblewrap, slirp4netns, iproute2 and tmux are the local sandbox's (docs/SANDBOX.md): it runs where the host lets
# uid 1000 make user namespaces, and each run's page says which of its walls held.
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core bubblewrap slirp4netns iproute2 \
    tmux && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# Dependencies first (from the lock, exactly): a code change does not reinstall them.
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-dev --no-install-project
COPY rlx rlx
COPY workers workers
COPY scripts scripts
COPY examples examples
COPY wsgi.py admin_wsgi.py ./
COPY deploy/space-entry.sh deploy/space-entry.sh
RUN uv sync --frozen --no-dev
# The agents the local sandbox runs besides oracle, nop and terminus-2 (docs/OPERATIONS.md, "Agents"), installed
# here, pinned, never at run time: mini-swe-agent on Debian's /usr/bin/python3, codex with Debian's node.
RUN apt-get update && apt-get install -y --no-install-recommends python3 nodejs npm && rm -rf /var/lib/apt/lists/*
COPY deploy/agents deploy/agents
RUN UV=uv RLX_AGENTS_DIR=/app/.tools/agents deploy/agents/install.sh

# Spaces run the container as uid 1000; the bucket is mounted at /data and must be writable by that user. Every
# process, the rollout workers included, runs unprivileged.
RUN useradd --create-home --uid 1000 user && mkdir -p /data && chown user:user /data
USER user
ENV HOME=/home/user \
    PATH=/app/.venv/bin:$PATH \
    STORAGE_DIR=/data \
    RLX_CACHE_DIR=/home/user/rlx-cache \
    RLX_SOURCE=hub \
    PORT=7860

EXPOSE 7860
# Liveness, not readiness: /readyz also fails while the Hub is down or no worker runs, and a restart helps neither.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD python -c "import os,urllib.request as u;u.urlopen('http://127.0.0.1:%s/healthz'%os.environ['PORT'],timeout=4)"

CMD ["/app/deploy/space-entry.sh"]

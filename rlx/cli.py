"""The `rlx` command: demo, serve, worker, and the jobs you can also run from a shell."""

from __future__ import annotations

import os
import socket
import sys
import time
from contextlib import contextmanager

import click

from rlx.config import Config, ConfigError
from rlx.demo_progress import announce_when_ready, say
from rlx.queue.embedded import EmbeddedRedis, EmbeddedRedisError
from rlx.store import Store


def load_config() -> Config:
    """The config from the environment, or one clear sentence and exit code 2."""
    try:
        return Config.from_env()
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


@contextmanager
def redis_for(config: Config):
    """Yield (URL, embedded server or None): REDIS_URL when set (checked), else a private server under
    STORAGE_DIR, stopped after."""
    from redis import RedisError

    from rlx.queue.connection import connect

    if config.redis_url:
        try:
            connect(config.redis_url).ping()
        except (RedisError, OSError) as exc:
            raise click.ClickException(f"REDIS_URL {config.redis_url} does not answer ({exc}).") from None
        yield config.redis_url, None
        return
    embedded = EmbeddedRedis(Store(config.storage_dir).redis_dir)
    try:
        url = embedded.start()
    except EmbeddedRedisError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        yield url, embedded
    finally:
        embedded.stop()


def _check_port_free(host: str, port: int) -> None:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            raise click.ClickException(f"{host}:{port} is already in use: stop what runs there, or pass --port.")


def gunicorn_args(host: str, port: int, workers: int, app: str = "rlx:create_app()") -> list[str]:
    return [
        sys.executable, "-m", "gunicorn", "--worker-class", "rlx.web.gevent_worker.GeventWorker",
        "--workers", str(workers),
        "--bind", f"{host}:{port}", "--graceful-timeout", "5", "--timeout", "120", "--log-level", "warning",
        app,
    ]


def _fresh_metrics_dir(config: Config):
    """Where gunicorn's workers write their request figures for /metrics to add up: local to this host, and emptied
    at start so a restart does not count the previous run's requests twice."""
    import shutil

    folder = config.cache_dir / "prometheus"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


DEMO_BANNER = {"text": "A demo on the bundled examples, all on this machine: open a task and press Run.",
               "href": None, "id": "demo"}


def announce_demo(config: Config) -> None:
    """The demo opens Explore with a banner, as the design does; written only where no settings file exists yet,
    so whatever an admin set (or removed) stays."""
    from rlx.admin.store import update_settings

    path = Store(config.storage_dir).settings_path
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        update_settings(path, lambda data: data.setdefault("banner", dict(DEMO_BANNER)))


def _queue_snapshot_build(config: Config, redis_url: str) -> None:
    """Start with a fresh catalog: the worker builds and publishes the snapshot of the source right away."""
    import dataclasses

    from rlx import create_app
    from rlx.jobs.snapshot import ensure_snapshot_job

    with create_app(dataclasses.replace(config, redis_url=redis_url)).app_context():
        ensure_snapshot_job()


# What `rlx demo` runs besides the web: one worker kept free for visitors' index jobs, so a page never waits behind
# bulk work, and one for the snapshot build (bulk indexing), which also helps with index jobs when it is idle.
DEMO_WORKERS = {"index worker": "index", "bulk worker": "snapshot,index,rollouts,bulk"}


def _run_group(config: Config, host: str, port: int, workers: int, with_worker: bool, demo: bool = False) -> None:
    from rlx.supervisor import Supervisor

    _check_port_free(host, port)
    started = time.monotonic()
    if demo:
        say("starting Redis, two workers, the OpenEnv example and the web server…")
    with redis_for(config) as (redis_url, embedded):
        env = {**os.environ, "REDIS_URL": redis_url, "STORAGE_DIR": str(config.storage_dir),
               "RLX_CACHE_DIR": str(config.cache_dir), "RLX_SOURCE": config.source,
               "SESSION_SECRET": config.session_secret}
        env["PROMETHEUS_MULTIPROC_DIR"] = str(_fresh_metrics_dir(config))
        if demo:  # the demo checks the bundled datasets' health as it indexes them, and opens with a banner
            env.setdefault("RLX_HEALTH_CHECKS", "auto")
            env.setdefault("RLX_DEMO_ACCOUNT", "demo-user")  # the sign-in page's stand-in (rlx/auth/demo.py)
            announce_demo(config)
        group = Supervisor(env)
        worker_names = set(DEMO_WORKERS) if with_worker else set()

        def after_new_redis():
            # A new Redis is empty: the workers' registrations and the queued jobs went with the old one.
            group.recycle(worker_names)
            if demo:
                _queue_snapshot_build(config, redis_url)

        if embedded is not None:
            group.adopt("embedded Redis", lambda: _started(embedded), restart=True, after_restart=after_new_redis)
        if demo:  # the bundled OpenEnv example runs live (the web and workers inherit its address)
            from rlx.live.demo import add_openenv_example

            add_openenv_example(group, env, redis_url, config.source)
        if with_worker:
            for name, queues in DEMO_WORKERS.items():
                group.start(name, [sys.executable, "-m", "workers.rq_worker", "--queues", queues], restart=True)
        if demo:
            _queue_snapshot_build(config, redis_url)
        group.start("web server", gunicorn_args(host, port, workers))
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"HF RL Explorer is running on http://{shown}:{port}/  (source: {config.source}; Ctrl-C stops it)")
        if demo:
            say("waiting for the workers and the web server to answer…")
            announce_when_ready(f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/", started)
        code = group.wait()
    if code:
        raise SystemExit(code)


def _started(embedded: EmbeddedRedis):
    """The embedded Redis's process, started unless it runs (the first time, `redis_for` started it)."""
    if embedded.process is None or embedded.process.poll() is not None:
        embedded.start()
    return embedded.process


@click.group()
def main() -> None:
    """HF RL Explorer."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64), help="gunicorn workers")
def demo(host: str, port: int, workers: int) -> None:
    """Run everything together: Redis (embedded unless REDIS_URL is set), two RQ workers and the web app."""
    _run_group(load_config(), host, port, workers, with_worker=True, demo=True)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64), help="gunicorn workers")
@click.option("--with-workers", is_flag=True, help="Also run the two RQ workers `rlx demo` runs (one box: the Space).")
def serve(host: str, port: int, workers: int, with_workers: bool) -> None:
    """Run the web app (gunicorn, gevent workers); start workers with `rlx worker`, or here with --with-workers."""
    _run_group(load_config(), host, port, workers, with_worker=with_workers)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8001, show_default=True, type=click.IntRange(1, 65535))
def admin(host: str, port: int) -> None:
    """Run the admin app (members of ADMIN_ORG only) on its own port, beside `rlx serve` on the same STORAGE_DIR."""
    from rlx.supervisor import Supervisor

    config = load_config()
    if not config.admin_org:
        raise click.ClickException("Set ADMIN_ORG to the Hub organization whose members may use the admin.")
    _check_port_free(host, port)
    with redis_for(config) as (redis_url, _embedded):
        env = {**os.environ, "REDIS_URL": redis_url, "STORAGE_DIR": str(config.storage_dir),
               "RLX_CACHE_DIR": str(config.cache_dir), "RLX_SOURCE": config.source,
               "SESSION_SECRET": config.session_secret}
        group = Supervisor(env)
        group.start("admin server", gunicorn_args(host, port, 1, "rlx.admin:create_admin_app()"))
        shown = f"[{host}]" if ":" in host else host
        click.echo(f"The admin is running on http://{shown}:{port}/ for members of {config.admin_org} "
                   "(Ctrl-C stops it)")
        code = group.wait()
    if code:
        raise SystemExit(code)


@main.command()
@click.option("--burst", is_flag=True, help="Work until the queues are empty, then exit.")
@click.option("--queues", default="index,snapshot,rollouts,bulk", show_default=True,
              help="The queues to work on, the first one first.")
def worker(burst: bool, queues: str) -> None:
    """Run one RQ worker (needs REDIS_URL, or a running `rlx serve`)."""
    from workers.rq_worker import parse_queues

    try:
        chosen = parse_queues(queues)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--queues") from None
    config = load_config()
    if not config.redis_url:
        socket_path = EmbeddedRedis(Store(config.storage_dir).redis_dir).socket
        if not socket_path.exists():
            raise click.ClickException("REDIS_URL is not set and no embedded Redis runs under STORAGE_DIR: "
                                       "start `rlx serve` first, or set REDIS_URL.")
        os.environ["REDIS_URL"] = f"unix://{socket_path}"
    from workers.rq_worker import main as run_worker

    run_worker(burst=burst, queues=chosen)


@main.command()
@click.argument("repo_id")
def index(repo_id: str) -> None:
    """Index one dataset now (ORG/NAME), in this process, with a progress bar."""
    from rlx import create_app
    from rlx.adapters import Env, choose
    from rlx.cli_progress import TerminalProgress
    from rlx.jobs.index import STEPS
    from rlx.sources import SourceError

    config = load_config()
    app = create_app(config)
    with app.app_context():
        source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
        try:
            env = Env(source.repo_info("dataset", repo_id), source, store)
            adapter = choose(env)
            if adapter is None:
                raise click.ClickException(f"{repo_id} is in no format this explorer reads.")
            progress = TerminalProgress(STEPS)
            index = adapter.build_index(env, progress)
            progress.close()
        except SourceError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"{repo_id}: {len(index.rows):,} tasks indexed in {index.summary.get('seconds', 0):.1f} s "
               f"(revision {(index.revision or '')[:12]}).")


@main.group()
def snapshot() -> None:
    """The catalog snapshot: build and publish it."""


@snapshot.command("build")
@click.option("--force", is_flag=True, help="Publish even a listing much smaller than the last snapshot's.")
@click.option("--budget-seconds", default=1800, show_default=True, type=click.IntRange(0),
              help="Stop rebuilding indexes after this many seconds (the snapshot is still published).")
@click.option("--max-builds", default=100, show_default=True, type=click.IntRange(0),
              help="Rebuild at most this many indexes in this run.")
def snapshot_build(force: bool, budget_seconds: int, max_builds: int) -> None:
    """List the catalog, rebuild the indexes that changed, build the snapshot and publish it, in this process."""
    from rlx.cli_progress import TerminalProgress
    from rlx.jobs.snapshot import job_token
    from rlx.snapshot.build import SnapshotBuildError
    from rlx.snapshot.refresh import STEPS, refresh_catalog
    from rlx.snapshot.publish import PublishError
    from rlx.sources import SourceError, open_source
    from rlx.store import Store
    from rlx.store.settings_file import SettingsFile

    config = load_config()
    source, store = open_source(config), Store(config.storage_dir)
    progress = TerminalProgress(STEPS)
    try:
        summary = refresh_catalog(source, store, config.cache_dir, settings=SettingsFile(store.settings_path).get(),
                              force=force, budget_s=budget_seconds, max_builds=max_builds, progress=progress,
                              token=job_token(source))
    except (SourceError, PublishError, SnapshotBuildError) as exc:
        raise click.ClickException(f"{exc} Nothing was published.") from None
    finally:
        progress.close()
    if summary["refused"]:
        raise click.ClickException(summary["refused"])
    counts = summary["counts"]
    click.echo(f"Published {summary['published']['db']}: {counts['envs']:,} environments, {counts['tasks']:,} "
               f"tasks; {len(summary['rebuilt']):,} indexes rebuilt, {len(summary['failed']):,} failed, "
               f"{summary['skipped']['current']:,} current, {len(summary['skipped']['over_budget']):,} left for "
               f"the next run ({summary['seconds']:.1f} s).")


if __name__ == "__main__":
    main()

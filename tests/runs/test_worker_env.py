"""The secrets a worker and a rollout's work horse hold: none of the web's, and in a rollout none at all."""

from __future__ import annotations

from rlx.runs.worker_env import drop_rollout_secrets, worker_config


def test_a_worker_starts_without_the_webs_secrets_and_never_reads_the_stored_one(tmp_path):
    stored = tmp_path / "data" / "session-secret"
    stored.parent.mkdir()
    stored.write_text("stored-session-secret-0123456789")
    environ = {"STORAGE_DIR": str(tmp_path / "data"), "SESSION_SECRET": "web-session-secret-0123456789",
               "OAUTH_CLIENT_SECRET": "oauth-secret", "METRICS_TOKEN": "metrics-token", "HF_TOKEN": "hf_job"}
    config = worker_config(environ)
    assert not {"SESSION_SECRET", "OAUTH_CLIENT_SECRET", "METRICS_TOKEN"} & set(environ)
    assert config.session_secret not in ("web-session-secret-0123456789", "stored-session-secret-0123456789")
    assert config.oauth_client_secret is None and config.metrics_token is None
    assert environ["HF_TOKEN"] == "hf_job"  # an index job may still read public datasets with the Job's token


def test_a_rollout_drops_every_secret_looking_variable_and_keeps_what_it_needs():
    environ = {"REDIS_URL": "redis://:pw@host/0", "HF_TOKEN": "hf_x", "OPENAI_API_KEY": "sk-x",
               "ANTHROPIC_API_KEY": "sk-ant", "DATABASE_PASSWORD": "pw", "SENTRY_DSN": "https://k@sentry",
               "PATH": "/usr/bin", "HOME": "/root", "HF_ENDPOINT": "https://huggingface.co",
               "RLX_MODEL_CALL_TIMEOUT": "90", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    dropped = drop_rollout_secrets(environ)
    assert set(environ) == {"PATH", "HOME", "HF_ENDPOINT", "RLX_MODEL_CALL_TIMEOUT", "LITELLM_LOCAL_MODEL_COST_MAP"}
    assert "REDIS_URL" in dropped and "SENTRY_DSN" in dropped

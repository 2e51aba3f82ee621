"""Config: every setting read from the environment, bad values stopped with one sentence."""

import re
from pathlib import Path

import pytest

from rlx.config import SETTINGS, Config, ConfigError

SETTINGS_DOC = Path(__file__).resolve().parent.parent / "docs" / "OPERATIONS.md"


def test_defaults_need_nothing_set(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = Config.from_env({})
    assert config.storage_dir == tmp_path / "data"
    assert config.cache_dir == tmp_path / "data" / "cache"
    assert config.redis_url is None
    assert config.hf_endpoint == "https://huggingface.co"
    assert Path(config.source).name == "examples"


def test_session_secret_is_generated_once_and_kept(tmp_path):
    first = Config.from_env({"STORAGE_DIR": str(tmp_path)})
    second = Config.from_env({"STORAGE_DIR": str(tmp_path)})
    assert len(first.session_secret) >= 32
    assert first.session_secret == second.session_secret
    assert (tmp_path / "session-secret").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "env, phrase",
    [
        ({"RLX_SOURCE": "/nonexistent/folder"}, "RLX_SOURCE is set to /nonexistent/folder, which is not a folder"),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL must look like redis://"),
        ({"REDIS_URL": "http://x"}, "REDIS_URL must look like"),
        ({"HF_ENDPOINT": "huggingface.co"}, "HF_ENDPOINT must be an http(s) URL"),
        ({"HF_ENDPOINT": "ftp://x"}, "HF_ENDPOINT must be an http(s) URL"),
        ({"RLX_PREVIEWS_MAX_MB": "0"}, "RLX_PREVIEWS_MAX_MB must be a whole number of megabytes from 1"),
        ({"RLX_PREVIEWS_MAX_MB": "1.5"}, "RLX_PREVIEWS_MAX_MB must be a whole number of megabytes from 1"),
        ({"RLX_PREVIEWS_MAX_MB": "9" * 40}, "RLX_PREVIEWS_MAX_MB must be a whole number of megabytes from 1"),
        ({"RLX_ADMIN_URL": "https://admin.example.org/admin"}, "RLX_ADMIN_URL must be the app's address alone"),
        ({"RLX_MODEL_DNS": "dns.example"}, "RLX_MODEL_DNS must be a DNS server's IP address"),
        ({"RLX_MODEL_DNS": "127.0.0.1:99999"}, "RLX_MODEL_DNS must be a DNS server's IP address"),
    ],
)
def test_a_bad_value_stops_start_up_with_one_sentence(tmp_path, env, phrase):
    with pytest.raises(ConfigError) as info:
        Config.from_env({"STORAGE_DIR": str(tmp_path), **env})
    message = str(info.value)
    assert phrase in message
    assert "\n" not in message and message.endswith(".")


def test_an_unwritable_storage_dir_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigError, match="STORAGE_DIR is set to .* which cannot be created"):
        Config.from_env({"STORAGE_DIR": str(blocker / "data")})


def test_the_cli_prints_the_sentence_not_a_traceback(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "rlx.cli", "demo"],
        env={"PATH": "/usr/bin:/bin", "STORAGE_DIR": str(tmp_path), "RLX_SOURCE": "/nonexistent"},
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode != 0
    assert "RLX_SOURCE is set to /nonexistent, which is not a folder" in result.stderr
    assert "Traceback" not in result.stderr


def test_every_setting_is_documented():
    doc = SETTINGS_DOC.read_text()
    for setting in SETTINGS:
        assert re.search(rf"`{setting.name}`", doc), f"docs/OPERATIONS.md does not document {setting.name}"


@pytest.mark.parametrize("value, parsed", [("10.0.0.53", ("10.0.0.53", 53)), ("127.0.0.1:5353", ("127.0.0.1", 5353)),
                                           ("[::1]:53", ("::1", 53)), ("::1", ("::1", 53))])
def test_the_model_dns_server_is_an_address_and_a_port(tmp_path, value, parsed):
    assert Config.from_env({"STORAGE_DIR": str(tmp_path), "RLX_MODEL_DNS": value}).model_dns == parsed

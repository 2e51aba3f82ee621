"""Reading Harbor's task.toml: every section, legacy fields, unknown keys, clear errors, runnability."""

import textwrap

import pytest

from rlx.adapters.harbor.taskconfig import TaskTomlError, parse_task_toml, runnable_here


def parse(text: str):
    return parse_task_toml(textwrap.dedent(text))


TB2_TASK = """
    schema_version = "1.1"
    artifacts = []

    [task]
    name = "terminal-bench/chess-best-move"
    description = "Find the best move."
    keywords = ["games"]
    authors = [{ name = "Nicholas Carlini", email = "nc@example.org" }]

    [metadata]
    author_name = "Nicholas Carlini"
    difficulty = "medium"
    category = "games"
    tags = []
    expert_time_estimate_min = 45.0
    junior_time_estimate_min = 180.0

    [verifier]
    timeout_sec = 900.0

    [agent]
    timeout_sec = 900.0

    [environment]
    build_timeout_sec = 600.0
    docker_image = "alexgshaw/chess-best-move:20251031"
    cpus = 1
    memory_mb = 2048
    storage_mb = 10240
    gpus = 0
    allow_internet = true
    mcp_servers = []

    [verifier.env]
    [environment.env]
    [solution.env]
"""


def test_a_terminal_bench_task_reads_every_section():
    config = parse(TB2_TASK)
    assert config.schema_version == "1.1"
    assert config.task.name == "terminal-bench/chess-best-move"
    assert config.task.keywords == ["games"]
    assert config.task.authors == [{"name": "Nicholas Carlini", "email": "nc@example.org"}]
    assert config.metadata["expert_time_estimate_min"] == 45.0
    assert config.verifier.timeout_sec == 900.0
    assert config.agent.timeout_sec == 900.0
    env = config.environment
    assert (env.docker_image, env.cpus, env.memory_mb, env.storage_mb, env.gpus) == (
        "alexgshaw/chess-best-move:20251031", 1.0, 2048, 10240, 0)
    assert env.network_mode == "public"
    assert config.extra == {}
    assert not config.is_multi_step


def test_an_empty_file_gets_harbor_defaults():
    config = parse_task_toml("")
    assert config.schema_version is None
    assert config.task is None
    assert config.verifier.timeout_sec == 600.0
    assert config.verifier.environment_mode == "shared"
    assert config.agent.timeout_sec is None
    assert config.environment.build_timeout_sec == 600.0
    assert config.environment.os == "linux"
    assert config.environment.network_mode == "public"
    assert config.multi_step_reward_strategy == "mean"


def test_legacy_memory_string_is_read_as_megabytes():
    config = parse("""
        [environment]
        memory = "2G"
        storage = "512M"
    """)
    assert config.environment.memory_mb == 2048
    assert config.environment.storage_mb == 512
    assert 'memory = "2G" read as memory_mb = 2048' in config.legacy
    assert 'storage = "512M" read as storage_mb = 512' in config.legacy


@pytest.mark.parametrize("written, megabytes", [("4G", 4096), ("1024K", 1), ("1.5G", 1536), ("10g", 10240),
                                                ("256MB", 256), ("2Gi", 2048)])
def test_legacy_sizes_in_every_unit_convert(written, megabytes):
    assert parse(f'[environment]\nmemory = "{written}"').environment.memory_mb == megabytes


def test_memory_mb_wins_over_the_legacy_memory_string():
    config = parse('[environment]\nmemory = "4G"\nmemory_mb = 1024')
    assert config.environment.memory_mb == 1024
    assert config.legacy == ['memory = "4G" ignored: memory_mb is set']


def test_an_unreadable_legacy_size_is_a_clear_error():
    with pytest.raises(TaskTomlError, match=r'memory = "lots" is not a size such as "2G"'):
        parse('[environment]\nmemory = "lots"')


@pytest.mark.parametrize("allow, mode", [("true", "public"), ("false", "no-network")])
def test_legacy_allow_internet_becomes_a_network_mode(allow, mode):
    config = parse(f"[environment]\nallow_internet = {allow}")
    assert config.environment.network_mode == mode
    assert config.legacy == [f'allow_internet = {allow} read as network_mode = "{mode}"']


def test_legacy_version_becomes_the_schema_version():
    config = parse('version = "1.0"')
    assert config.schema_version == "1.0"
    assert config.legacy == ['version = "1.0" read as schema_version = "1.0"']


def test_keys_harbor_does_not_define_are_kept_at_every_depth():
    config = parse("""
        custom_top = "x"
        [agent]
        setup_timeout_sec = 300
        [environment]
        shm_size = "1g"
        [environment.tpu]
        type = "v5e"
        topology = "2x4"
        zone = "eu"
        [[steps]]
        name = "one"
        instruction_hint = "be quick"
    """)
    assert config.extra == {
        "custom_top": "x",
        "agent.setup_timeout_sec": 300,
        "environment.shm_size": "1g",
        "environment.tpu.zone": "eu",
        "steps[one].instruction_hint": "be quick",
    }
    assert config.environment.tpu == {"type": "v5e", "topology": "2x4"}


def test_metadata_is_kept_as_written_however_deep():
    config = parse("""
        [metadata]
        difficulty = "hard"
        [metadata.scoring.weights]
        speed = 0.2
    """)
    assert config.metadata == {"difficulty": "hard", "scoring": {"weights": {"speed": 0.2}}}


def test_a_syntax_error_names_its_line_and_column():
    with pytest.raises(TaskTomlError) as error:
        parse_task_toml('[task]\nname = "a/b"\n\nbroken line here\n')
    message = str(error.value)
    assert message.startswith("task.toml line 4, column 8: ")
    assert "expected '=' after a key" in message
    assert message.endswith(".")


def test_a_key_set_twice_is_said_plainly():
    with pytest.raises(TaskTomlError, match=r"task\.toml line 2\b.*a key is set twice\."):
        parse_task_toml("a = 1\na = 2\n")


def test_a_table_declared_twice_is_named():
    with pytest.raises(TaskTomlError, match=r"the table \[agent\] is declared twice"):
        parse_task_toml("[agent]\n[agent]\n")


@pytest.mark.parametrize("text, message", [
    ('[environment]\ncpus = "lots"', 'task.toml [environment] cpus must be a number, not the string "lots".'),
    ("[environment]\ngpus = 1.5", "task.toml [environment] gpus must be a whole number, not the number 1.5."),
    ('[environment]\nos = "macos"', 'task.toml [environment] os must be one of "linux", "windows", not the string "macos".'),
    ("[verifier]\ntimeout_sec = true", "task.toml [verifier] timeout_sec must be a number, not the boolean true."),
    ('[environment]\nnetwork_mode = "offline"',
     'task.toml [environment] network_mode must be one of "public", "no-network", "allowlist", not the string "offline".'),
    ("[verifier.env]\nLEVEL = 3", "task.toml [verifier.env] LEVEL must be a string, not the number 3."),
    ("environment = 3", "task.toml environment must be a table, not the number 3."),
    ("[task]\ndescription = 'no name'", 'task.toml [task] needs a name such as "org/task-name".'),
    ("schema_version = 1.4", "task.toml top level schema_version must be a string, not the number 1.4."),
])
def test_wrong_types_are_refused_with_one_sentence(text, message):
    with pytest.raises(TaskTomlError) as error:
        parse_task_toml(text)
    assert str(error.value) == message


def test_numeric_strings_are_read_as_numbers_as_harbor_does():
    config = parse('[environment]\ncpus = "2"\ngpus = "1"')
    assert config.environment.cpus == 2.0
    assert config.environment.gpus == 1


def test_verifier_env_keeps_host_variable_references_as_written():
    config = parse('[verifier.env]\nOPENAI_API_KEY = "${OPENAI_API_KEY}"\nMODE = "${MODE:-strict}"')
    assert config.verifier.env == {"OPENAI_API_KEY": "${OPENAI_API_KEY}", "MODE": "${MODE:-strict}"}


def test_a_verifier_environment_table_implies_a_separate_verifier():
    config = parse("""
        [verifier.environment]
        docker_image = "grader:1"
        memory = "1G"
    """)
    assert config.verifier.environment_mode == "separate"
    assert config.verifier.environment.docker_image == "grader:1"
    assert config.verifier.environment.memory_mb == 1024
    assert config.legacy == ['[verifier.environment] memory = "1G" read as memory_mb = 1024']


def test_a_shared_verifier_with_its_own_environment_is_a_contradiction():
    with pytest.raises(TaskTomlError, match="environment_mode = \"shared\" but also has a"):
        parse('[verifier]\nenvironment_mode = "shared"\n[verifier.environment]\ndocker_image = "x"')


def test_collect_commands_get_their_defaults():
    config = parse('[[verifier.collect]]\ncommand = "cp /app/db /logs/artifacts/"')
    assert config.verifier.collect == [
        {"command": "cp /app/db /logs/artifacts/", "service": "main", "timeout_sec": 60.0, "user": None}]


def test_healthcheck_and_mcp_servers_are_read_with_defaults():
    config = parse("""
        [environment.healthcheck]
        command = "curl -f localhost:8000"
        retries = 5
        [[environment.mcp_servers]]
        name = "tools"
        transport = "http"
        url = "http://tools:8000/mcp"
        [[environment.mcp_servers]]
        name = "local"
        transport = "stdio"
        command = "python"
        args = ["-m", "server"]
    """)
    check = config.environment.healthcheck
    assert check["command"] == "curl -f localhost:8000"
    assert (check["retries"], check["interval_sec"], check["timeout_sec"]) == (5, 5.0, 30.0)
    first, second = config.environment.mcp_servers
    assert (first["name"], first["transport"], first["url"]) == ("tools", "streamable-http", "http://tools:8000/mcp")
    assert (second["transport"], second["command"], second["args"]) == ("stdio", "python", ["-m", "server"])


def test_an_http_mcp_server_without_a_url_is_refused():
    with pytest.raises(TaskTomlError, match=r"\[environment.mcp_servers\[0\]\] uses sse and needs a url"):
        parse('[[environment.mcp_servers]]\nname = "x"')


def test_multi_step_tasks_keep_their_steps_in_order():
    config = parse("""
        multi_step_reward_strategy = "final"
        [[steps]]
        name = "setup"
        min_reward = 1
        [steps.agent]
        timeout_sec = 60
        [[steps]]
        name = "solve"
        min_reward = { correctness = 0.5 }
        [steps.verifier.env]
        LEVEL = "2"
    """)
    assert config.is_multi_step
    assert [step["name"] for step in config.steps] == ["setup", "solve"]
    assert config.steps[0]["min_reward"] == 1.0
    assert config.steps[0]["agent"] == {"timeout_sec": 60}
    assert config.steps[1]["min_reward"] == {"correctness": 0.5}
    assert config.steps[1]["verifier"] == {"env": {"LEVEL": "2"}}
    assert config.multi_step_reward_strategy == "final"


def test_a_step_without_a_name_is_refused():
    with pytest.raises(TaskTomlError, match="step 2 needs a name"):
        parse('[[steps]]\nname = "a"\n[[steps]]\nmin_reward = 1')


def test_artifacts_may_be_paths_or_tables():
    config = parse("""
        artifacts = ["/app/out.txt", { source = "/app/logs", destination = "logs", exclude = ["*.tmp"] }]
    """)
    assert config.artifacts == [
        "/app/out.txt",
        {"source": "/app/logs", "destination": "logs", "exclude": ["*.tmp"], "service": None},
    ]


def test_solution_env_is_read_from_the_solution_table():
    assert parse('[solution.env]\nSEED = "7"').solution_env == {"SEED": "7"}


def test_per_phase_network_settings_override_the_environment():
    config = parse("""
        [environment]
        network_mode = "no-network"
        [verifier]
        network_mode = "public"
    """)
    assert config.effective_network("agent") == "no-network"
    assert config.effective_network("verifier") == "public"


def test_the_agent_phase_can_have_its_own_allowlist():
    config = parse("""
        [agent]
        network_mode = "allowlist"
        allowed_hosts = ["pypi.org", "*.pythonhosted.org"]
    """)
    assert config.effective_network("agent") == "allowlist"
    assert config.effective_allowed_hosts("agent") == ["pypi.org", "*.pythonhosted.org"]
    assert config.effective_network("verifier") == "public"


def test_a_separate_verifier_takes_its_network_from_its_own_environment():
    config = parse("""
        [environment]
        network_mode = "public"
        [verifier.environment]
        docker_image = "grader"
        network_mode = "no-network"
    """)
    assert config.effective_network("verifier") == "no-network"
    assert config.effective_network("agent") == "public"


def test_an_unknown_phase_is_a_programming_error():
    with pytest.raises(ValueError):
        parse_task_toml("").effective_network("judge")


# --- can it run in the local sandbox? ---------------------------------------------------------------------

def test_a_plain_linux_task_runs_here():
    assert runnable_here(parse(TB2_TASK)) == (True, [])


def test_a_no_network_task_runs_here():
    assert runnable_here(parse('[environment]\nnetwork_mode = "no-network"'))[0]


@pytest.mark.parametrize("text, reason", [
    ('[environment]\nos = "windows"', "It needs a Windows machine; the local sandbox runs Linux."),
    ("[environment]\ngpus = 2\ngpu_types = ['H100']", "It asks for 2 GPUs (H100); the local sandbox has none."),
    ("[environment]\ngpu_types = ['A100']", "It asks for a GPU (A100); the local sandbox has none."),
    ('[environment.tpu]\ntype = "v5e"', "It asks for a TPU; the local sandbox has none."),
    ('[environment]\nnetwork_mode = "allowlist"\nallowed_hosts = ["pypi.org"]',
     "The agent and verifier network is limited to an allowlist, which the local sandbox cannot enforce "
     "(it gives full network or none)."),
    ('[verifier]\nnetwork_mode = "allowlist"',
     "The verifier network is limited to an allowlist, which the local sandbox cannot enforce "
     "(it gives full network or none)."),
    ('[verifier]\nenvironment_mode = "separate"',
     "Its verifier runs in a separate container that declares no image of its own."),
    ('[verifier.environment]\ncpus = 2', "Its verifier runs in a separate container that declares no image of its own."),
    ('[verifier.environment]\ndocker_image = "g"\ngpus = 1', "Its verifier asks for 1 GPU; the local sandbox has none."),
])
def test_tasks_the_local_sandbox_cannot_honour_say_why(text, reason):
    runnable, reasons = runnable_here(parse(text))
    assert not runnable
    assert reasons == [reason]


def test_a_separate_verifier_with_its_own_image_runs_here():
    assert runnable_here(parse('[verifier.environment]\ndocker_image = "grader:1"')) == (True, [])


def test_every_reason_is_listed_when_several_apply():
    runnable, reasons = runnable_here(parse('[environment]\nos = "windows"\ngpus = 1\nnetwork_mode = "allowlist"'))
    assert not runnable
    assert len(reasons) == 3
    assert all(reason.endswith(".") for reason in reasons)

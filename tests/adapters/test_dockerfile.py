"""Reading a task's Dockerfile into steps a sandbox can replay, or saying why it cannot."""

import textwrap

import pytest

from rlx.adapters.harbor.dockerfile import DockerfilePlan, analyze_dockerfile, share_replayable


def plan_of(text: str) -> DockerfilePlan:
    return analyze_dockerfile(textwrap.dedent(text).lstrip("\n"))


def test_a_plain_single_stage_file_is_replayable_step_by_step():
    plan = plan_of("""
        # Terminal-Bench style environment
        FROM python:3.12-slim

        WORKDIR /app
        ENV PYTHONUNBUFFERED=1
        COPY requirements.txt .
        RUN pip install -r requirements.txt
        USER nobody
        CMD ["python", "app.py"]
    """)
    assert plan.replayable
    assert plan.reasons == []
    assert plan.base_image == "python:3.12-slim"
    assert plan.steps == [
        ("WORKDIR", "/app"),
        ("ENV", "PYTHONUNBUFFERED=1"),
        ("COPY", "requirements.txt ."),
        ("RUN", "pip install -r requirements.txt"),
        ("USER", "nobody"),
    ]
    assert plan.ignored == ['CMD ["python", "app.py"]']


def test_user_is_always_kept_as_a_step():
    plan = plan_of("FROM debian:12\nUSER 1000:1000\nRUN whoami\nUSER root\n")
    assert [step for step in plan.steps if step[0] == "USER"] == [("USER", "1000:1000"), ("USER", "root")]


def test_continuation_lines_are_joined_and_comments_inside_them_dropped():
    plan = plan_of("""
        FROM debian:12
        RUN apt-get update && \\
        # install git only
            apt-get install -y git \\

            && rm -rf /var/lib/apt/lists/*
    """)
    assert plan.replayable
    command = plan.steps[0][1]
    assert " ".join(command.split()) == "apt-get update && apt-get install -y git && rm -rf /var/lib/apt/lists/*"
    assert "install git only" not in command


def test_the_escape_directive_changes_the_continuation_character():
    plan = plan_of("""
        # escape=`
        FROM debian:12
        RUN echo one `
            two
    """)
    assert plan.steps == [("RUN", "echo one     two")]


def test_exec_form_becomes_a_quoted_shell_line():
    plan = plan_of('FROM debian\nRUN ["sh", "-c", "echo $HOME > out.txt"]\nCOPY ["my file.txt", "/app/"]\n')
    assert plan.steps == [("RUN", "sh -c 'echo $HOME > out.txt'"), ("COPY", "'my file.txt' /app/")]


def test_invalid_json_is_read_as_shell_form_as_docker_does():
    plan = plan_of('FROM debian\nRUN [ -f /etc/os-release ] && echo ok\n')
    assert plan.steps == [("RUN", "[ -f /etc/os-release ] && echo ok")]


def test_a_bare_run_heredoc_becomes_its_script():
    plan = plan_of("""
        FROM ubuntu:24.04
        RUN <<EOF
        apt-get update
        apt-get install -y curl
        EOF
        WORKDIR /app
    """)
    assert plan.replayable
    assert plan.steps == [("RUN", "apt-get update\napt-get install -y curl"), ("WORKDIR", "/app")]


def test_a_heredoc_feeding_a_command_keeps_shell_heredoc_syntax():
    plan = plan_of("""
        FROM ubuntu:24.04
        RUN cat <<'EOF' > /app/config.ini
        [main]
        key = value
        EOF
    """)
    assert plan.steps == [("RUN", "cat <<'EOF' > /app/config.ini\n[main]\nkey = value\nEOF")]


def test_a_heredoc_script_with_a_shebang_runs_with_its_interpreter():
    plan = plan_of("""
        FROM python:3.12
        RUN <<EOF
        #!/usr/bin/env python3
        print("hello")
        EOF
    """)
    assert plan.steps == [("RUN", "/usr/bin/env python3 <<'EOF'\nprint(\"hello\")\nEOF")]


def test_a_heredoc_that_never_ends_makes_the_file_unreadable():
    plan = plan_of("FROM debian\nRUN <<EOF\necho hi\n")
    assert not plan.replayable
    assert plan.reasons == ["The Dockerfile cannot be read: the heredoc EOF opened on line 2 never ends."]


def test_arg_defaults_are_substituted_into_from():
    plan = plan_of("""
        ARG PYTHON=3.12
        ARG BASE=python:${PYTHON}-slim
        FROM ${BASE}
        RUN python --version
    """)
    assert plan.replayable
    assert plan.base_image == "python:3.12-slim"


@pytest.mark.parametrize("from_line, base", [
    ("FROM $BASE", "python:3.12"),
    ("FROM ${BASE}", "python:3.12"),
    ("FROM ${MISSING:-debian:12}", "debian:12"),
    ("FROM python:${TAG:-3.11}", "python:3.11"),
    ("from ${BASE} as runtime", "python:3.12"),
])
def test_from_reads_global_args_in_every_spelling(from_line, base):
    plan = plan_of(f"ARG BASE=python:3.12\nARG TAG\n{from_line}\nRUN true\n")
    assert plan.replayable, plan.reasons
    assert plan.base_image == base


def test_a_from_variable_without_a_default_is_not_replayable():
    plan = plan_of("ARG IMAGE\nFROM $IMAGE\n")
    assert not plan.replayable
    assert plan.reasons == ["Line 2: FROM uses IMAGE, which has no default value."]


def test_platform_and_stage_name_are_read_from_from():
    plan = plan_of("FROM --platform=linux/amd64 ubuntu:24.04 AS final\nRUN true\n")
    assert (plan.base_image, plan.platform, plan.stage) == ("ubuntu:24.04", "linux/amd64", "final")
    assert plan.replayable


def test_an_arg_inside_the_stage_takes_the_global_default():
    plan = plan_of("ARG VERSION=1.2\nFROM debian\nARG VERSION\nARG OTHER=x\nRUN echo $VERSION\n")
    assert plan.steps[:2] == [("ARG", "VERSION=1.2"), ("ARG", "OTHER=x")]


def test_a_final_stage_copying_from_a_build_stage_is_not_replayable():
    plan = plan_of("""
        FROM golang:1.22 AS build
        RUN go build -o /bin/app ./...
        FROM debian:12
        COPY --from=build /bin/app /bin/app
    """)
    assert not plan.replayable
    assert plan.reasons == ["Line 4: COPY --from=build copies from an earlier build stage."]


def test_copying_from_another_image_is_not_replayable():
    plan = plan_of("FROM debian\nCOPY --from=nginx:latest /etc/nginx /etc/nginx\n")
    assert plan.reasons == ["Line 2: COPY --from=nginx:latest copies from another image."]


def test_a_final_stage_built_on_an_earlier_stage_is_not_replayable():
    plan = plan_of("FROM debian AS base\nRUN apt-get update\nFROM base\nRUN echo done\n")
    assert not plan.replayable
    assert plan.reasons == ["Line 3: FROM base starts from an earlier build stage."]


def test_an_unused_earlier_stage_is_ignored_and_the_final_stage_replays():
    plan = plan_of("FROM golang:1.22 AS tools\nRUN go install x\nFROM debian:12\nRUN echo hi\n")
    assert plan.replayable
    assert plan.base_image == "debian:12"
    assert plan.steps == [("RUN", "echo hi")]
    assert plan.ignored == ["Stage tools (line 1): the final stage does not use it."]


@pytest.mark.parametrize("line, reason", [
    ("ADD https://example.com/data.tgz /tmp/", "Line 2: ADD fetches https://example.com/data.tgz from the network."),
    ("ADD git@github.com:org/repo.git /src", "Line 2: ADD fetches git@github.com:org/repo.git from the network."),
    ("ADD --checksum=sha256:abc https://x.org/f /f", "Line 2: ADD fetches https://x.org/f from the network."),
    ("ONBUILD RUN make", "Line 2: ONBUILD registers build triggers a replay cannot honour."),
    ('SHELL ["/bin/bash", "-o", "pipefail", "-c"]',
     "Line 2: SHELL changes the shell RUN uses, which a replay with sh would not."),
    ("RUN --mount=type=secret,id=token cat /run/secrets/token",
     "Line 2: RUN --mount=type=secret needs build secrets the sandbox does not have."),
    ("RUN --mount=type=bind,from=builder,target=/src make", "Line 2: RUN --mount binds files from builder for one command."),
    ("FROBNICATE now", "Line 2: FROBNICATE is not a Dockerfile instruction this reader knows."),
    ("RUN", "Line 2: RUN has no arguments."),
])
def test_instructions_a_replay_cannot_honour_make_it_not_replayable(line, reason):
    plan = plan_of(f"FROM debian:12\n{line}\n")
    assert not plan.replayable
    assert plan.reasons == [reason]


def test_shell_is_never_silently_dropped():
    plan = plan_of('FROM debian\nSHELL ["/bin/bash", "-c"]\nRUN echo ${BASH_VERSION}\n')
    assert not plan.replayable
    assert any("SHELL" in reason for reason in plan.reasons)


def test_add_of_a_local_file_is_replayed():
    plan = plan_of("FROM debian\nADD --chown=app:app vendor.tar.gz /opt/\n")
    assert plan.replayable
    assert plan.steps == [("ADD", "--chown=app:app vendor.tar.gz /opt/")]


def test_a_cache_mount_is_dropped_with_a_note():
    plan = plan_of("FROM python:3.12\nRUN --mount=type=cache,target=/root/.cache pip install numpy\n")
    assert plan.replayable
    assert plan.steps == [("RUN", "pip install numpy")]
    assert plan.ignored == ["RUN --mount=type=cache (line 2): a build cache, not needed to replay."]


def test_metadata_instructions_are_listed_as_ignored_in_any_case():
    plan = plan_of("""
        from debian
        label org.example.task="chess"
        expose 8080
        healthcheck CMD curl -f localhost:8080
        volume /data
        stopsignal SIGTERM
        maintainer someone@example.org
        entrypoint ["/bin/bash"]
        run echo ok
    """)
    assert plan.replayable
    assert plan.steps == [("RUN", "echo ok")]
    assert [entry.split()[0] for entry in plan.ignored] == [
        "LABEL", "EXPOSE", "HEALTHCHECK", "VOLUME", "STOPSIGNAL", "MAINTAINER", "ENTRYPOINT"]


@pytest.mark.parametrize("text, reason", [
    ("", "There is no FROM line."),
    ("# only a comment\n", "There is no FROM line."),
    ("RUN echo hi\n", "Line 1: RUN comes before any FROM."),
    ("FROM scratch\nCOPY app /app\n", "Line 1: FROM scratch starts from an empty image, not a base to run in."),
    ("FROM debian\x00\n", "The Dockerfile cannot be read: it holds NUL bytes, so it is not a text file."),
])
def test_files_without_a_usable_base_say_why(text, reason):
    plan = analyze_dockerfile(text)
    assert not plan.replayable
    assert reason in plan.reasons


def test_share_replayable_counts_the_replayable_plans():
    good = analyze_dockerfile("FROM debian\n")
    bad = analyze_dockerfile("FROM scratch\n")
    assert share_replayable([good, good, bad, good]) == 0.75
    assert share_replayable([]) == 0.0

"""What a task's Dockerfile does, as steps a sandbox can replay on top of the base image.

`analyze_dockerfile` reads the file the way BuildKit does (parser directives, `\\` continuations, comments
dropped inside them, exec and shell forms, heredocs, global ARGs substituted into FROM, multi-stage) and
keeps the final stage: RUN, COPY, ADD, ENV, WORKDIR, USER and ARG become steps; metadata-only
instructions are listed as ignored. Anything a replay could not honour makes the plan not replayable,
with one sentence per reason, rather than being dropped: copying from another stage or image, ADD from
a URL or git, ONBUILD, SHELL, secret or bind mounts, a base that is an earlier stage, scratch, no FROM.

Step arguments are ready for `sh -c` where the instruction runs a command: exec form is turned into a
quoted shell line, and a heredoc is kept with its body (a bare `RUN <<EOF` becomes its script).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

REPLAYED = ("RUN", "COPY", "ADD", "ENV", "WORKDIR", "USER", "ARG")
IGNORED = ("LABEL", "EXPOSE", "CMD", "ENTRYPOINT", "HEALTHCHECK", "VOLUME", "STOPSIGNAL", "MAINTAINER")

_DIRECTIVE = re.compile(r"^#\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(\S*)\s*$")
_HEREDOC = re.compile(r"(?<!<)<<(-?)(['\"]?)([A-Za-z_][\w.-]*)\2(?!<)")
_FLAG = re.compile(r"^--([A-Za-z][\w-]*)(?:=(\S*))?(?:\s+|$)")
_VARIABLE = re.compile(r"\$\{(\w+)(?::?([-+])([^}]*))?\}|\$(\w+)")
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|git@)", re.IGNORECASE)


@dataclass
class DockerfilePlan:
    base_image: str | None = None
    steps: list[tuple[str, str]] = field(default_factory=list)
    replayable: bool = False
    reasons: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    platform: str | None = None
    stage: str | None = None


@dataclass
class _Instruction:
    keyword: str
    args: str
    line: int
    heredocs: list[tuple[str, bool, str]] = field(default_factory=list)  # (delimiter, strip_tabs, body)


class _Unparseable(Exception):
    pass


def analyze_dockerfile(text: str) -> DockerfilePlan:
    """The replay plan for the final stage of a Dockerfile."""
    plan = DockerfilePlan()
    try:
        instructions = _read_instructions(text)
    except _Unparseable as error:
        plan.reasons.append(f"The Dockerfile cannot be read: {error}.")
        return plan
    global_args, stages = _split_stages(instructions, plan)
    if not stages:
        plan.reasons.append("There is no FROM line.")
    else:
        _plan_final_stage(stages, global_args, plan)
    plan.replayable = not plan.reasons and plan.base_image is not None
    return plan


def share_replayable(plans: Iterable[DockerfilePlan]) -> float:
    """The share of plans (0.0 to 1.0) a sandbox can replay; 0.0 when there are none."""
    plans = list(plans)
    return sum(plan.replayable for plan in plans) / len(plans) if plans else 0.0


# --- reading instructions ----------------------------------------------------------------------------------

def _read_instructions(text: str) -> list[_Instruction]:
    if "\x00" in text:
        raise _Unparseable("it holds NUL bytes, so it is not a text file")
    lines = text.removeprefix("\ufeff").splitlines()
    escape, index = _read_directives(lines)
    instructions = []
    while index < len(lines):
        stripped = lines[index].strip()
        if not stripped or stripped.startswith("#"):
            index += 1
            continue
        start = index
        logical, index = _join_continuations(lines, index, escape)
        keyword, *args = logical.strip().split(None, 1)
        instruction = _Instruction(keyword.upper(), args[0].strip() if args else "", start + 1)
        if instruction.keyword in ("RUN", "COPY", "ADD"):
            index = _read_heredocs(lines, index, instruction)
        instructions.append(instruction)
    return instructions


def _read_directives(lines: list[str]) -> tuple[str, int]:
    """The escape character (from `# escape=`) and the index of the first line after the directives."""
    escape, index = "\\", 0
    while index < len(lines):
        match = _DIRECTIVE.match(lines[index].strip())
        if not match:
            break
        if match.group(1).lower() == "escape" and match.group(2) in ("\\", "`"):
            escape = match.group(2)
        index += 1
    return escape, index


def _join_continuations(lines: list[str], index: int, escape: str) -> tuple[str, int]:
    continuation = re.compile(re.escape(escape) + r"[ \t]*$")
    pieces = []
    while index < len(lines):
        line = lines[index]
        index += 1
        match = continuation.search(line)
        if not match:
            pieces.append(line)
            break
        pieces.append(line[: match.start()])
        # Comment and blank lines inside a continued instruction are dropped, as BuildKit does.
        while index < len(lines) and (not lines[index].strip() or lines[index].lstrip().startswith("#")):
            index += 1
    return "".join(pieces), index


def _read_heredocs(lines: list[str], index: int, instruction: _Instruction) -> int:
    for match in _HEREDOC.finditer(instruction.args):
        strip_tabs, delimiter = match.group(1) == "-", match.group(3)
        body = []
        while index < len(lines):
            line = lines[index]
            index += 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
            body.append(line.lstrip("\t") if strip_tabs else line)
        else:
            raise _Unparseable(f"the heredoc {delimiter} opened on line {instruction.line} never ends")
        instruction.heredocs.append((delimiter, strip_tabs, "\n".join(body)))
    return index


# --- stages -----------------------------------------------------------------------------------------------

@dataclass
class _Stage:
    source: str
    platform: str | None
    name: str | None
    line: int
    instructions: list[_Instruction] = field(default_factory=list)


def _split_stages(instructions: list[_Instruction], plan: DockerfilePlan) -> tuple[dict, list[_Stage]]:
    global_args: dict[str, str | None] = {}
    stages: list[_Stage] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            stages.append(_read_from(instruction, plan))
        elif stages:
            stages[-1].instructions.append(instruction)
        elif instruction.keyword == "ARG":
            for name, default in _read_args(instruction.args).items():
                # A default may use the ARGs declared before it, as Docker expands them.
                global_args[name] = _substitute(default, global_args)[0] if default is not None else None
        else:
            plan.reasons.append(f"Line {instruction.line}: {instruction.keyword} comes before any FROM.")
    return global_args, stages


def _read_from(instruction: _Instruction, plan: DockerfilePlan) -> _Stage:
    flags, rest = _split_flags(instruction.args)
    words = rest.split()
    name = None
    if len(words) == 3 and words[1].lower() == "as":
        name = words[2].lower()
    elif len(words) != 1:
        plan.reasons.append(f"Line {instruction.line}: FROM should name one image (optionally AS a name).")
    return _Stage(words[0] if words else "", flags.get("platform"), name, instruction.line)


def _read_args(text: str) -> dict[str, str | None]:
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    args: dict[str, str | None] = {}
    for word in words:
        name, equals, default = word.partition("=")
        args[name] = default if equals else None
    return args


def _plan_final_stage(stages: list[_Stage], global_args: dict, plan: DockerfilePlan) -> None:
    final = stages[-1]
    earlier = {stage.name for stage in stages[:-1] if stage.name} | {str(i) for i in range(len(stages) - 1)}
    base, unresolved = _substitute(final.source, global_args)
    plan.stage, plan.platform = final.name, final.platform
    if unresolved:
        names = ", ".join(unresolved)
        plan.reasons.append(f"Line {final.line}: FROM uses {names}, which has no default value.")
    elif base.lower() in earlier:
        plan.reasons.append(f"Line {final.line}: FROM {base} starts from an earlier build stage.")
    elif base.lower() == "scratch":
        plan.reasons.append(f"Line {final.line}: FROM scratch starts from an empty image, not a base to run in.")
    else:
        plan.base_image = base
    for instruction in final.instructions:
        _plan_instruction(instruction, earlier, global_args, plan)
    if not _uses_earlier_stage(final, base, earlier):
        for stage in stages[:-1]:
            label = stage.name or stage.source
            plan.ignored.append(f"Stage {label} (line {stage.line}): the final stage does not use it.")


def _uses_earlier_stage(final: _Stage, base: str, earlier: set[str]) -> bool:
    if base.lower() in earlier:
        return True
    for instruction in final.instructions:
        flags, _ = _split_flags(instruction.args)
        mount = dict(part.partition("=")[::2] for part in flags.get("mount", "").split(","))
        if flags.get("from", "").lower() in earlier or mount.get("from", "").lower() in earlier:
            return True
    return False


def _substitute(text: str, args: dict[str, str | None]) -> tuple[str, list[str]]:
    """Global ARG defaults put into FROM: $NAME, ${NAME}, ${NAME:-default}, ${NAME:+alternative}."""
    unresolved: list[str] = []

    def replace(match: re.Match) -> str:
        name = match.group(1) or match.group(4)
        value = args.get(name)
        if match.group(2) == "-":
            return value if value else match.group(3)
        if match.group(2) == "+":
            return match.group(3) if value else ""
        if value is None:
            unresolved.append(name)
            return match.group(0)
        return value

    return _VARIABLE.sub(replace, text), unresolved


# --- instructions of the final stage ----------------------------------------------------------------------

def _plan_instruction(instruction: _Instruction, stages: set[str], global_args: dict, plan: DockerfilePlan) -> None:
    keyword, line = instruction.keyword, instruction.line
    if keyword in IGNORED:
        plan.ignored.append(_shorten(f"{keyword} {instruction.args}"))
    elif keyword == "SHELL":
        plan.reasons.append(f"Line {line}: SHELL changes the shell RUN uses, which a replay with sh would not.")
    elif keyword == "ONBUILD":
        plan.reasons.append(f"Line {line}: ONBUILD registers build triggers a replay cannot honour.")
    elif keyword not in REPLAYED:
        plan.reasons.append(f"Line {line}: {keyword} is not a Dockerfile instruction this reader knows.")
    elif not instruction.args and not instruction.heredocs:
        plan.reasons.append(f"Line {line}: {keyword} has no arguments.")
    elif keyword == "RUN":
        _plan_run(instruction, stages, plan)
    elif keyword in ("COPY", "ADD"):
        _plan_copy(instruction, stages, plan)
    elif keyword == "ARG":
        plan.steps.append(("ARG", _arg_with_global_default(instruction.args, global_args)))
    else:
        plan.steps.append((keyword, instruction.args))


def _arg_with_global_default(text: str, global_args: dict) -> str:
    """`ARG NAME` inside the stage takes the default of a global ARG NAME=...; the step says so."""
    words = []
    for name, default in _read_args(text).items():
        default = default if default is not None else global_args.get(name)
        words.append(name if default is None else f"{name}={shlex.quote(default)}")
    return " ".join(words)


def _plan_run(instruction: _Instruction, stages: set[str], plan: DockerfilePlan) -> None:
    flags, rest = _split_flags(instruction.args)
    line = instruction.line
    for name, value in flags.items():
        if name == "mount":
            _check_mount(value, line, plan)
        elif name == "network":
            plan.ignored.append(f"RUN --network={value} (line {line}): the sandbox decides the network.")
        else:
            plan.reasons.append(f"Line {line}: RUN --{name} is not something a replay can grant.")
    command = _exec_form(rest)
    if command is None:
        command = _with_heredocs(rest, instruction.heredocs)
    if command is None:
        plan.reasons.append(f"Line {line}: RUN with several bare heredocs cannot be replayed as one script.")
        return
    plan.steps.append(("RUN", command))


def _check_mount(spec: str, line: int, plan: DockerfilePlan) -> None:
    options = dict(part.partition("=")[::2] for part in spec.split(","))
    kind = options.get("type", "bind")
    if kind in ("cache", "tmpfs"):
        plan.ignored.append(f"RUN --mount=type={kind} (line {line}): a build cache, not needed to replay.")
    elif kind in ("secret", "ssh"):
        plan.reasons.append(f"Line {line}: RUN --mount=type={kind} needs build {kind}s the sandbox does not have.")
    else:
        source = options.get("from", "the build context")
        plan.reasons.append(f"Line {line}: RUN --mount binds files from {source} for one command.")


def _plan_copy(instruction: _Instruction, stages: set[str], plan: DockerfilePlan) -> None:
    keyword, line = instruction.keyword, instruction.line
    flags, rest = _split_flags(instruction.args)
    if "from" in flags:
        source = flags["from"]
        what = "an earlier build stage" if source.lower() in stages else "another image"
        plan.reasons.append(f"Line {line}: {keyword} --from={source} copies from {what}.")
        return
    words = _exec_list(rest)
    argument = shlex.join(words) if words is not None else rest
    sources = (words if words is not None else rest.split())[:-1]
    remote = [source for source in sources if _URL.match(source)]
    if remote:
        plan.reasons.append(f"Line {line}: {keyword} fetches {remote[0]} from the network.")
        return
    flag_text = " ".join(f"--{name}={value}" if value else f"--{name}" for name, value in flags.items())
    argument = f"{flag_text} {argument}".strip()
    plan.steps.append((keyword, _with_heredocs(argument, instruction.heredocs) or argument))


def _with_heredocs(command: str, heredocs: list[tuple[str, bool, str]]) -> str | None:
    """A command and its heredoc bodies as one shell text; a bare `RUN <<EOF` becomes the script itself."""
    if not heredocs:
        return command
    if _HEREDOC.sub("", command).strip():
        tails = [f"{body}\n{delimiter}" for delimiter, _, body in heredocs]
        return "\n".join([command, *tails])
    if len(heredocs) > 1:
        return None
    delimiter, _, body = heredocs[0]
    first, _, script = body.partition("\n")
    if first.startswith("#!"):
        # A script with its own interpreter: feed it to that interpreter, unexpanded, as BuildKit runs it.
        return f"{first[2:].strip()} <<'{delimiter}'\n{script}\n{delimiter}"
    return body


def _split_flags(args: str) -> tuple[dict[str, str], str]:
    flags = {}
    rest = args
    while match := _FLAG.match(rest):
        flags[match.group(1).lower()] = match.group(2) or ""
        rest = rest[match.end():]
    return flags, rest.strip()


def _exec_list(text: str) -> list[str] | None:
    """The JSON (exec) form's words, or None: invalid JSON is shell form, as in Docker."""
    if not text.startswith("["):
        return None
    try:
        words = json.loads(text)
    except ValueError:
        return None
    if isinstance(words, list) and words and all(isinstance(word, str) for word in words):
        return words
    return None


def _exec_form(text: str) -> str | None:
    words = _exec_list(text)
    return shlex.join(words) if words is not None else None


def _shorten(text: str, limit: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."

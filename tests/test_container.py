"""The Docker image and compose file, read against what they must do (no Docker needed): the same
dependencies as `.ci/run`'s install, in a layer of their own; a numeric user; a health check; no
password in compose.yaml and one build."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib

from tests.conftest import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text()


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments left out."""
    joined = re.sub(r"\\\n\s*", " ", "\n".join(line for line in DOCKERFILE.splitlines()
                                             if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0], line.split(None, 1)[1]) for line in joined.splitlines() if line.strip()]


def test_the_dependencies_are_pyprojects_and_installed_before_the_code():
    steps = _instructions()
    runs = [(i, args) for i, (kind, args) in enumerate(steps) if kind == "RUN"]
    deps_step = next(i for i, args in runs if "requirements.txt" in args)
    code_steps = [i for i, (kind, args) in enumerate(steps)
                  if kind == "COPY" and re.match(r"(bot|rules|images)\b", args)]
    assert steps[deps_step - 1] == ("COPY", "pyproject.toml ./")   # only pyproject.toml: code changes reuse it
    assert deps_step < min(code_steps)
    assert any("pip install --no-cache-dir --no-deps ." in args for i, args in runs if i > max(code_steps))
    # The extraction the image runs yields exactly the dependencies `pip install -e .` (.ci/run) installs.
    extract = re.search(r'python -c "(.+?)"', steps[deps_step][1]).group(1)
    printed = subprocess.run([sys.executable, "-c", extract], cwd=ROOT, capture_output=True, text=True, check=True)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert printed.stdout.split("\n")[:-1] == project["dependencies"]
    assert re.search(r"""pip"? install --quiet -e '\.\[test\]'""", (ROOT / ".ci" / "run").read_text())
    packaged = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    copied = {args.split()[0] for kind, args in steps if kind == "COPY"}
    assert {p.rstrip("*") for p in packaged["include"]} <= copied   # every package the install needs


def test_a_numeric_user_and_a_health_check_of_the_bot():
    steps = dict(_instructions())
    assert re.fullmatch(r"\d+:\d+", steps["USER"]) and steps["USER"] != "0:0"
    assert "--uid " + steps["USER"].split(":")[0] in DOCKERFILE
    assert steps["HEALTHCHECK"].endswith('CMD ["pitboss", "health"]')
    assert "PITBOSS_HEARTBEAT=" in steps["ENV"]


def test_the_build_context_leaves_out_what_the_image_never_needs():
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", ".env", "tests", "*.db"} <= ignored
    assert ".env" in (ROOT / ".gitignore").read_text().split()


def test_compose_takes_the_password_from_the_env_file_and_builds_once():
    text = (ROOT / "compose.yaml").read_text()
    body = "\n".join(line.split("#", 1)[0] for line in text.splitlines())   # comments left out
    assert re.search(r"^ +POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?", body, re.M)
    assert re.search(r"^ +PITBOSS_DB: postgresql://pitboss:\$\{POSTGRES_PASSWORD:\?[^}]*\}@db", body, re.M)
    assert not re.search(r"postgresql://\w+:\w+@", text)   # no password written out
    assert len(re.findall(r"^ +build:", body, re.M)) == 1   # one build; every shard runs its image
    assert len(re.findall(r"^ +image: pitboss:local\s*$", body, re.M)) == len(re.findall(r"PITBOSS_SHARDS: \d", body))
    assert "POSTGRES_PASSWORD=" in (ROOT / ".env.example").read_text()


def test_the_image_runs_the_bot_or_any_pitboss_command_named_after_it():
    """`docker run IMAGE` runs the bot; `docker run IMAGE invite --client-id N` (verify, backup, exec …)
    runs that command (issue 39, item 10: it was exit 127, no such program)."""
    from bot.cli.main import build_parser

    steps = dict(_instructions())
    entrypoint, default = json.loads(steps["ENTRYPOINT"]), json.loads(steps["CMD"])
    assert entrypoint == ["pitboss"]
    assert "pitboss" in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    parser = build_parser()
    assert parser.parse_args(default).mode == "run"
    for named in (["invite", "--client-id", "1234"], ["verify"], ["backup", "/data/copy.db"],
                  ["exec", "--channel", "c", "--user", "u", "/game status"]):
        assert parser.parse_args(named).mode == named[0]


def test_the_tools_log_their_errors_where_the_images_user_may_write():
    """The working folder /app is root's; the error log goes on the volume the image gives its user."""
    env = dict(re.findall(r"(\w+)=(\S+)", dict(_instructions())["ENV"]))
    user = dict(_instructions())["USER"]
    assert env["PITBOSS_LOG"].startswith("/data/")
    assert f"chown {user} /data" in DOCKERFILE


def test_compose_limits_each_bots_memory():
    services = re.split(r"^  (?=\w)", (ROOT / "compose.yaml").read_text().split("\nvolumes:")[0], flags=re.M)
    bots = [body for body in services if "PITBOSS_SHARDS" in body]
    assert bots and all(re.search(r"^    mem_limit: \d+m\b", body, re.M) for body in bots)

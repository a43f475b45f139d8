"""scripts/package refuses what it cannot build from, with a message that says what to do: a tree with
uncommitted changes (the package is built from what is committed), and a missing tool."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT_SECONDS = 60
# What the script needs before it looks for its tools: the shell's own helpers.
BASE_TOOLS = ["dirname", "sed", "head", "mktemp", "rm", "mkdir", "tar", "cat"]


@pytest.fixture
def clone(tmp_path, repo_root) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    target = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo_root), str(target)], check=True, timeout=SCRIPT_SECONDS)
    return target


def package(clone: Path, path: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/bin/bash", str(clone / "scripts/package"), "--output", str(clone / "out")],
                          capture_output=True, text=True, timeout=SCRIPT_SECONDS, env={"PATH": path, "HOME": str(clone)})


def tools_directory(tmp_path: Path, leave_out: str) -> str:
    """A PATH of one directory holding every tool the script asks for but `leave_out`."""
    directory = tmp_path / "bin"
    directory.mkdir()
    for tool in BASE_TOOLS + ["git", "swift", "dpkg-buildpackage", "dpkg-parsechangelog", "dh", "pandoc"]:
        found = shutil.which(tool)
        if tool != leave_out:
            # A stand-in where the machine lacks the tool: the script only asks whether it is there.
            target = directory / tool
            if found:
                target.symlink_to(found)
            else:
                target.write_text("#!/bin/sh\nexit 1\n")
                target.chmod(0o755)
    return str(directory)


def test_a_tree_with_uncommitted_changes_is_refused(clone):
    (clone / "README.md").write_text((clone / "README.md").read_text() + "\nan edit\n")
    done = package(clone, os.environ["PATH"])
    assert done.returncode == 1
    assert "uncommitted changes" in done.stderr and "README.md" in done.stderr, done.stderr
    assert not (clone / "out").exists()


@pytest.mark.parametrize("tool, says", [
    ("pandoc", "no 'pandoc': install it (apt-get install pandoc)"),
    ("dh", "no 'dh': install debhelper"),
    ("swift", "no 'swift' on PATH: the build needs a Swift 6 toolchain"),
])
def test_a_missing_tool_is_named_with_what_to_install(clone, tmp_path, tool, says):
    done = package(clone, tools_directory(tmp_path, tool))
    assert done.returncode == 1
    assert says in done.stderr, done.stderr

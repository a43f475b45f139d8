"""`ipdirect check` reads the `auth_file` a configuration names, and warns about a listener anyone may use."""

import subprocess
from pathlib import Path

from test_check_command import reported_lines, run_ipdirect

# Written into the checked configs; nothing is started on it.
OFF_LOOPBACK_LISTEN = "0.0.0.0:3128"
OPEN_PROXY_WARNING = f"event=open_proxy_warning listen={OFF_LOOPBACK_LISTEN}"


def htpasswd(path: Path, *arguments: str) -> None:
    """Adds a user with apache2-utils' htpasswd, creating the file when it does not exist yet."""
    create = [] if path.exists() else ["-c"]
    subprocess.run(["htpasswd", *create, "-b", *arguments], cwd=path.parent, check=True, capture_output=True,
                   stdin=subprocess.DEVNULL)


def config_file(tmp_path: Path, access: str = "", listen: str = OFF_LOOPBACK_LISTEN) -> Path:
    config = tmp_path / "ipdirect.toml"
    config.write_text(f'[proxy]\nlisten = "{listen}"\n\n[admin]\nlisten = []\n\n[access]\n{access}')
    return config


def test_check_reports_each_refused_htpasswd_line_by_file_line_and_user_and_never_the_hash(tmp_path):
    users = tmp_path / "htpasswd"
    htpasswd(users, "-B", str(users), "alice", "s3cret")
    htpasswd(users, "-m", str(users), "bob", "hunter2")
    bob_hash = users.read_text().splitlines()[1].split(":", 1)[1]
    completed = run_ipdirect("check", "--config", str(config_file(tmp_path, f'auth_file = "{users}"\n')))
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, output
    assert reported_lines(output, users) == {2}, output
    assert f"{users}:2: user bob: $apr1$ (Apache MD5) password hash is not accepted" in output, output
    assert bob_hash not in output and "hunter2" not in output, output


def test_check_accepts_bcrypt_and_sha_crypt_users_and_warns_about_no_open_listener(tmp_path):
    users = tmp_path / "htpasswd"
    htpasswd(users, "-B", str(users), "alice", "s3cret")
    htpasswd(users, "-5", str(users), "carol", "an0ther")
    completed = run_ipdirect("check", "--config", str(config_file(tmp_path, f'auth_file = "{users}"\n')))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "open_proxy_warning" not in completed.stderr, completed.stderr


def test_check_of_a_missing_auth_file_exits_1_naming_it(tmp_path):
    missing = tmp_path / "absent-htpasswd"
    completed = run_ipdirect("check", "--config", str(config_file(tmp_path, f'auth_file = "{missing}"\n')))
    assert completed.returncode == 1
    assert f"{missing}: cannot open: No such file or directory" in completed.stderr, completed.stderr


def test_check_warns_about_a_listener_off_loopback_without_logins_or_a_narrower_client_list(tmp_path):
    completed = run_ipdirect("check", "--config", str(config_file(tmp_path)))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert OPEN_PROXY_WARNING in completed.stderr, completed.stderr


def test_check_does_not_warn_when_the_client_list_is_narrower_or_the_listener_on_loopback(tmp_path):
    narrower = run_ipdirect("check", "--config", str(config_file(tmp_path, 'clients = ["192.168.1.0/24"]\n')))
    assert narrower.returncode == 0, narrower.stdout + narrower.stderr
    assert "open_proxy_warning" not in narrower.stderr, narrower.stderr
    loopback = run_ipdirect("check", "--config", str(config_file(tmp_path, listen="127.0.0.1:3128")))
    assert loopback.returncode == 0, loopback.stdout + loopback.stderr
    assert "open_proxy_warning" not in loopback.stderr, loopback.stderr

"""A password never leaves the process: a study run with credentials in both URLs (its PostgreSQL storage and its
MLflow tracking server; trust auth and a server without auth accept any password) leaves the password in no output,
no file, no store and no artifact. Every command a user runs on such a study is run, in real processes, its error
paths too."""

import psycopg
import pytest
from conftest import launch_mlflow_server, run_gametune, wait_for_mlflow_server

from gamecore.redaction import redact

pytestmark = pytest.mark.slow
SECRET = "S3CRET"

STUDY = """
name = "sec"
difficulty = "hard"
setup = "random-mcts-mcts"
[fixed]
ppn = 5
[space]
budget = {{ choice = [20, 40] }}
[objective]
games = 10
[validation]
top_k = 1
games = 10
[test]
games = 10
[search]
sampler = "grid"
pruner = "none"
[mlflow]
tracking_uri = "{tracking}"
"""


@pytest.mark.parametrize("url, shown", [
    ("postgresql+psycopg://u:S3CRET@127.0.0.1:5432/db", "postgresql+psycopg://u:***@127.0.0.1:5432/db"),
    ("http://u:S3CRET@host:5000", "http://u:***@host:5000"),
    ("https://S3CRET@host/api", "https://***@host/api"),
    ("postgresql://u:p@S3CRET@h/db", "postgresql://u:***@h/db"),
    ("postgresql://h/db?sslmode=require&password=S3CRET", "postgresql://h/db?sslmode=require&password=***"),
    ("error at ray://u:S3CRET@head:10001: refused", "error at ray://u:***@head:10001: refused"),
    ("postgresql://postgres@127.0.0.1/test", "postgresql://postgres@127.0.0.1/test"),  # a role name is no secret
    ("sqlite:////tmp/a.db and journal:x.journal", "sqlite:////tmp/a.db and journal:x.journal"),
    ("postgresql://u:se/cr#e?t@h:5432/db", "postgresql://u:***@h:5432/db"),  # SQLAlchemy reads them unescaped
    ("postgresql://u:sec@ret@h:5432/db: refused", "postgresql://u:***@h:5432/db: refused"),
    ("postgresql://u@h/db?sslpassword=S3CRET", "postgresql://u@h/db?sslpassword=***"),
    ("https://host:8080/x failed; write to admin@example.org", "https://host:8080/x failed; write to admin@example.org"),
], ids=["storage", "tracking", "token", "at-sign", "query", "in-text", "user-only", "files", "path-characters",
        "two-at-signs", "sslpassword", "no-userinfo"])
def test_redact_hides_every_form_of_credentials(url, shown):
    assert redact(url) == shown


@pytest.mark.parametrize("password", ["se/cr#e?t", "S3 CRET"])
def test_a_password_no_url_pattern_reads_is_printed_by_no_command(tmp_path, password):
    """A password with a space or the URL's own separators, in a storage URL on the command line: the dry run and
    the error of an unreachable server print it nowhere (it printed whole)."""
    (tmp_path / "sec.toml").write_text(STUDY.format(tracking="sqlite:///mlflow.db"))
    for args in (("tune", "run", "sec.toml", "--dry-run", "--storage",
                  f"postgresql://postgres:{password}@127.0.0.1:5432/test"),
                 ("tune", "export", "sec", "--storage", f"postgresql://postgres:{password}@127.0.0.1:9/test",
                  "--out", "x.toml")):
        done = run_gametune(tmp_path, *args)
        assert "***" in done.stdout + done.stderr, done.stdout + done.stderr
        assert password not in done.stdout + done.stderr and "CRET" not in done.stdout + done.stderr


def _database_text(url: str) -> str:
    """Every row of every table of the database at ``url``, as text."""
    plain = url.replace("+psycopg", "").replace(f":{SECRET}@", "@")
    with psycopg.connect(plain) as connection:
        tables = [name for (name,) in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        return "\n".join(str(row) for table in tables
                         for row in connection.execute(f'SELECT t::text FROM "{table}" t'))


def test_a_study_with_passwords_in_both_urls_leaves_them_nowhere(tmp_path, fresh_postgres):
    storage = fresh_postgres.replace("postgres@", f"postgres:{SECRET}@")
    with open(tmp_path / "mlflow-server.log", "w") as log:  # the server's own output is searched too
        server, uri = launch_mlflow_server(f"sqlite:///{tmp_path}/server.db", tmp_path, output=log)
    try:
        wait_for_mlflow_server(server, uri)
        tracking = uri.replace("http://", f"http://u:{SECRET}@")
        (tmp_path / "sec.toml").write_text(STUDY.format(tracking=tracking))
        outputs = []
        for args, code in [
            (("tune", "run", "sec.toml", "--storage", storage, "--dry-run"), 0),
            (("tune", "run", "sec.toml", "--storage", storage), 0),
            (("tune", "run", "sec.toml", "--storage", storage), 0),  # already finished: resumed, nothing to run
            (("tune", "worker", "sec.toml", "--storage", storage, "--wait", "5"), 0),
            (("tune", "export", "sec.toml", "--storage", storage, "--out", "exported.toml"), 0),
            (("tune", "run", "sec.toml", "--storage", storage.replace(":5432/", ":1/"), "--dry-run"), 2),
        ]:
            done = run_gametune(tmp_path, *args)
            assert done.returncode == code, (args, done.stderr[-3000:])
            outputs += [done.stdout, done.stderr]
        (tmp_path / "sec.toml").write_text(STUDY.format(tracking=f"http://u:{SECRET}@127.0.0.1:1"))
        done = run_gametune(tmp_path, "tune", "run", "sec.toml", "--storage", storage)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        outputs += [done.stdout, done.stderr]
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert "u:***@127.0.0.1" in "".join(outputs)  # the URLs were printed, redacted
    assert (tmp_path / "exported.toml").is_file() and (tmp_path / "sec-best.toml").is_file()
    leaks = [line for text in outputs for line in text.splitlines() if SECRET in line]
    written = [path for path in tmp_path.rglob("*") if path.is_file() and path.name != "sec.toml"]  # the user's own file
    leaks += [str(path) for path in written if SECRET.encode() in path.read_bytes()]
    stored = _database_text(storage)
    assert "sec" in stored  # the study is there
    leaks += ["the PostgreSQL storage"] if SECRET in stored else []
    assert not leaks, f"{SECRET} found in: {', '.join(leaks)}"

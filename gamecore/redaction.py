"""Secrets kept inside the process: every URL the project prints, stores or logs goes through ``redact``.

A storage (``postgresql+psycopg://user:PASSWORD@host/db``), a tracking server
(``https://user:PASSWORD@host``, ``https://TOKEN@host``) or a Ray address may
carry credentials. They stay where the user put them (the study file, the
command line, the environment) and are shown as ``***`` everywhere else:
messages, ``--dry-run``, the study's user attributes, MLflow tags, a trial's
recorded error. Credentials are better not written into URLs at all: libpq
reads ``PGPASSWORD`` and ``~/.pgpass``, MLflow ``MLFLOW_TRACKING_USERNAME`` and
``MLFLOW_TRACKING_PASSWORD`` (docs/security.md).
"""

from __future__ import annotations

import re

HIDDEN = "***"
# scheme://userinfo@ : the userinfo of any URL in a text (up to its last "@" before the path: a password may hold one)
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s]*)@")
# a password or token given as a query parameter (libpq's ?password=..., a ?token=...)
_QUERY_SECRET = re.compile(r"(?P<key>[?&;](?:password|passwd|pwd|token|access_token|secret|api_key)=)[^&;#\s'\"]*",
                           re.IGNORECASE)
_BARE_TOKEN_SCHEMES = ("http://", "https://", "ws://", "wss://")  # https://TOKEN@host: the userinfo is the secret


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it hidden: ``user:PASSWORD@`` becomes ``user:***@``, a bare
    ``TOKEN@`` of an http(s) URL ``***@``, and ``?password=...`` ``?password=***``. A user name alone stays (a
    database role is no secret)."""
    return _QUERY_SECRET.sub(lambda m: f"{m['key']}{HIDDEN}", _USERINFO.sub(_hide_userinfo, str(text)))


def has_credentials(url: str) -> bool:
    """Whether ``url`` carries a secret that ``redact`` would hide."""
    return redact(url) != url


def _hide_userinfo(match: re.Match) -> str:
    scheme, userinfo = match["scheme"], match["userinfo"]
    user, colon, _ = userinfo.partition(":")
    if colon:
        return f"{scheme}{user}:{HIDDEN}@"
    if scheme.lower() in _BARE_TOKEN_SCHEMES:
        return f"{scheme}{HIDDEN}@"
    return match.group(0)

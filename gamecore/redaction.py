"""Secrets kept inside the process: every URL the project prints, stores or logs goes through ``redact``.

A storage (``postgresql+psycopg://user:PASSWORD@host/db``), a tracking server
(``https://user:PASSWORD@host``, ``https://TOKEN@host``) or a Ray address may
carry credentials. They stay where the user put them (the study file, the
command line, the environment) and are shown as ``***`` everywhere else:
messages, ``--dry-run``, the study's user attributes, MLflow tags, a trial's
recorded error. A password no URL pattern can read (one with a space, or quoted
in part by a driver's message) is hidden too: the process remembers the password
of each storage and tracking URL it is given (``remember``). Credentials are
better not written into URLs at all: libpq reads ``PGPASSWORD`` and
``~/.pgpass``, MLflow ``MLFLOW_TRACKING_USERNAME`` and
``MLFLOW_TRACKING_PASSWORD`` (docs/security.md).
"""

from __future__ import annotations

import re

HIDDEN = "***"
# scheme://user:password@ of any URL in a text, or a bare scheme://token@: the password may hold / ? # and @ (up to
# the last "@" before the host's path), as SQLAlchemy and libpq read them unescaped
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)"
                       r"(?P<userinfo>[^/?#\s@:]*(?::[^@\s]*(?:@[^@\s/]*)*)?)@")
# a password or token given as a query parameter (libpq's ?password=... and ?sslpassword=..., a ?token=...)
_QUERY_SECRET = re.compile(r"(?P<key>[?&;](?:password|passwd|pwd|sslpassword|token|access_token|secret|client_secret|"
                           r"api_key|apikey)=)[^&;#\s'\"]*", re.IGNORECASE)
# the URL's password as a driver reads it (up to the last "@"): remembered, it is hidden wherever it appears, even
# where no URL pattern finds it (a password with a space, or a driver's message quoting part of the URL)
_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:(?P<password>.+)@", re.DOTALL)
_BARE_TOKEN_SCHEMES = ("http://", "https://", "ws://", "wss://")  # https://TOKEN@host: the userinfo is the secret
SHORTEST_REMEMBERED = 4  # a shorter password is hidden by the URL patterns only (hiding "ab" everywhere garbles text)
_remembered: set[str] = set()


def remember(url: str | None) -> None:
    """Hide the password of ``url`` (a storage or tracking URL this process was given) in every text ``redact``
    sees from now on, wherever it appears."""
    found = _PASSWORD.match(url or "")
    if found and len(found["password"]) >= SHORTEST_REMEMBERED:
        _remembered.add(found["password"])


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it hidden: ``user:PASSWORD@`` becomes ``user:***@``, a bare
    ``TOKEN@`` of an http(s) URL ``***@``, and ``?password=...`` ``?password=***``. A user name alone stays (a
    database role is no secret)."""
    text = str(text)
    for secret in sorted(_remembered, key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return _QUERY_SECRET.sub(lambda m: f"{m['key']}{HIDDEN}", _USERINFO.sub(_hide_userinfo, text))


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

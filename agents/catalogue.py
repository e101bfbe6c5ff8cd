"""The agents of a game and their parameters, as a person reads them (``gametune agents GAME [AGENT]``): what the
one-line errors about an agent or a parameter point to."""

from __future__ import annotations

from agents.specs import AgentKind, SpecError, agent_kinds
from gamecore.interface import Game


def catalogue(game: Game | str, agent: str | None = None) -> str:
    """Every agent of ``game`` (one line each: what it is, where it decides), or one agent's parameters as a table
    of name, type, default, valid values and meaning; SpecError (one line listing the agents) for an unknown one."""
    kinds = agent_kinds(game)
    if agent is None:
        width = max(len(name) for name in kinds)
        lines = [f"agents of {game} (gametune agents {game} AGENT: its parameters):"]
        for name, kind in kinds.items():
            lines.append(f"  {name:<{width}}  {_summary(kind)}")
        return "\n".join(lines)
    if agent not in kinds:
        raise SpecError(f"unknown agent {agent!r} of {game}; valid: {', '.join(kinds)}")
    kind = kinds[agent]
    lines = [f"{agent} ({game}): {_summary(kind)}"]
    if not kind.params:
        return "\n".join([*lines, "  no parameters"])
    rows = [("parameter", "type", "default", "valid values", "meaning")]
    rows += [(p.name, p.type.__name__, shown(p.default), p.valid(), p.help) for p in kind.params]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        lines.append("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
    return "\n".join(lines)


def _summary(kind: AgentKind) -> str:
    """An agent's help, and where it decides when not everywhere."""
    where = f" (decides at {', '.join(kind.stages)})" if kind.stages else ""
    return f"{kind.help or kind.name}{where}"


def shown(value: object) -> str:
    """A parameter's default as ``gametune agents`` shows it."""
    if isinstance(value, bool):
        return str(value).lower()
    if value == "" or value is None:
        return '""'
    return f"{value:g}" if isinstance(value, float) else str(value)


"""``lotr report``: the finished studies next to the thesis's published numbers (``docs/results.md`` and figures).

Each section is one experiment of the thesis: our trials (read from the
studies' Optuna storage), each with its win rate, 95% Wilson interval and
games, beside the published figure with its interval. A row *agrees* when the
two intervals overlap, *differs* (with the known reason) when they do not, and
is *not run* when the study has no trial for it. Figures: win rate against
ppn and budget, the RL learning curves, and the Pareto front of win rate
against time per game.
"""

from __future__ import annotations

import csv
import datetime
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import optuna
from optuna.trial import TrialState

from agents.setup import Setup
from agents.specs import SpecError
from lotr_sim.layout import DIFFICULTIES
from tuning.storage import local_store, storage_for, storage_object
from tuning.published import PUBLISHED, RULES_RANDOM, Published
from tuning.study_file import StudySpec, load_study
from tuning.tracking import code_version

MCTS_REASON = ("the published search played copies of the real game, deck order included, and kept the outcomes "
               "it liked (RULES.md); ours is honest")
RL_REASON = ("the published game had defects that favour the player (RULES.md) and its RL figures are the best "
             "training moving averages; ours are evaluations on deals the training never saw")
RANDOM_REASON = "the published code had defects that favour the player; ours follows RULES.md (its column)"
CURVES = ("best-players", "rl-encodings", "rl-encodings-distinct")  # studies whose learning curves are drawn


@dataclass
class Measured:
    """One finished trial, as the report reads it."""

    study: str
    number: int
    label: str  # setup short form with oracle-mcts shown as mcts
    oracle: bool
    difficulty: str
    params: dict
    config: Setup
    win_rate: float
    low: float
    high: float
    games: int
    seconds_per_game: float
    training_seconds: float | None = None
    folder: Path | None = None
    chosen: dict | None = None  # the study's selection record (validation and test figures), on its chosen trial

    def value(self, key: str):
        """A searched value, else the trial's setup's value of ``key`` (``questing.encoding`` or ``budget``)."""
        if key in self.params:
            return self.params[key]
        stage, _, name = key.rpartition(".")
        for spec in [getattr(self.config, stage)] if stage else self.config.agents:
            if name == "reduction" and "reduction_questing" in spec.as_dict():
                return spec["reduction_questing"]
            if name in spec.as_dict():
                return spec[name]
        return None


@dataclass
class StudyRun:
    """A study file and what its storage holds (``trials`` is None when it was never run here)."""

    spec: StudySpec
    trials: list[Measured] | None  # the complete ones
    pareto: list[Measured] = field(default_factory=list)
    pruned: int = 0


def read_study(path: Path, root: Path = Path(".")) -> StudyRun:
    """The complete trials of a study file's study, from its storage (a default local store lies in ``root``)."""
    spec = load_study(path)
    url = storage_for(spec.name, spec.storage, 1, root)
    local = local_store(url)
    if local is not None and not local.is_file():
        return StudyRun(spec, None)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        study = optuna.load_study(study_name=spec.name, storage=storage_object(url))
    except KeyError:
        return StudyRun(spec, None)
    except Exception as error:
        raise SpecError(f"storage of {spec.name}: cannot read the study: {str(error).splitlines()[0]}") from None
    chosen = study.user_attrs.get("selection") or {}
    measured = [_measured(spec, t, chosen) for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))]
    run = StudyRun(spec, measured, pruned=len(study.get_trials(deepcopy=False, states=(TrialState.PRUNED,))))
    if len(spec.metrics) > 1:
        front = {t.number for t in study.best_trials}
        run.pareto = [m for m in measured if m.number in front]
    return run


def _measured(spec: StudySpec, trial, chosen: dict) -> Measured:
    config = Setup.from_mapping(trial.user_attrs["config"], source=f"{spec.name} trial {trial.number}")
    low, high = trial.user_attrs["wilson_95"]
    folder = trial.user_attrs.get("folder")
    return Measured(
        study=spec.name, number=trial.number, label=config.short_name.replace("oracle-mcts", "mcts"),
        oracle=config.is_oracle, difficulty=spec.trial_difficulty(trial.params), params=dict(trial.params),
        config=config, win_rate=trial.values[0], low=low, high=high,
        games=trial.user_attrs.get("games", spec.games), seconds_per_game=trial.user_attrs["seconds_per_game"],
        training_seconds=trial.user_attrs.get("training_seconds"), folder=Path(folder) if folder else None,
        chosen=chosen if chosen.get("trial") == trial.number else None,
    )


# ---- sections ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One experiment: which studies and published rows, and how a trial and a published row are matched."""

    experiment: str
    title: str
    studies: tuple[str, ...]
    columns: tuple[str, ...]  # the key's column names
    ours: Callable[[Measured], tuple]  # the key of a trial
    theirs: Callable[[Published], tuple]  # the key of a published row
    reason: str
    published_filter: Callable[[Published], bool] = lambda p: True
    pick: Callable[[list[Measured]], list[Measured]] = lambda trials: trials  # e.g. the best ppn per budget
    detail: tuple[str, Callable[[Measured], object]] | None = None  # a column of what ``pick`` chose


def _setup_key(m: Measured) -> tuple:
    return (m.label + (" (ORACLE)" if m.oracle else ""), m.difficulty)


def _best_per(key: Callable[[Measured], tuple]) -> Callable[[list[Measured]], list[Measured]]:
    def pick(trials: list[Measured]) -> list[Measured]:
        best: dict[tuple, Measured] = {}
        for m in trials:
            if key(m) not in best or m.win_rate > best[key(m)].win_rate:
                best[key(m)] = m
        return list(best.values())

    return pick


SHARING = {True: "shared", False: "distinct"}  # the thesis's rl* and rl** rows


def _shared(m: Measured) -> str:
    return SHARING[m.study == "rl-encodings"] if m.config.planning.agent == "rl" else "-"


def _search(m: Measured) -> str:
    return "ORACLE" if m.oracle else "honest"


SECTIONS = (
    Section("random-baseline", "Random agent (Table 3.2)", ("random-baseline",), ("difficulty",),
            lambda m: (m.difficulty,), lambda p: (p.difficulty,), RANDOM_REASON,
            published_filter=lambda p: p.games == 100_000),
    Section("mcts-reduction", "Vanilla MCTS against action reduction, hard, budget 40 (Table 6.1)", ("mcts-reduction",),
            ("setup", "reduction"), lambda m: (m.label, m.value("reduction")),
            lambda p: (p.label, p.params["reduction"]), MCTS_REASON),
    Section("mcts-setups", "MCTS setups at budget 40 (Table 6.2)", ("mcts-setups",), ("setup", "difficulty"),
            _setup_key, lambda p: (p.label, p.difficulty), MCTS_REASON),
    Section("mcts-ppn", "Playouts per node at budget 200, random-mcts-mcts, hard (Figure 6.2)", ("mcts-ppn",),
            ("search", "reduction", "ppn"),
            lambda m: (_search(m), m.value("reduction"), m.value("ppn")),
            lambda p: ("honest", p.params["reduction"], p.params["ppn"]), MCTS_REASON),
    Section("mcts-budget", "Budget with its best ppn, random-mcts-mcts, hard (Table 6.3)", ("mcts-budget",),
            ("search", "budget"), lambda m: (_search(m), m.value("budget")),
            lambda p: ("honest", p.params["budget"]), MCTS_REASON,
            pick=_best_per(lambda m: (m.oracle, m.value("budget"))), detail=("best ppn", lambda m: m.value("ppn"))),
    Section("rl-q-macro", "Q-learning with macro actions, encoding 0 (Table 6.4)", ("rl-q-macro",),
            ("setup", "difficulty"), _setup_key, lambda p: (p.label, p.difficulty), RL_REASON,
            published_filter=lambda p: "algo" in p.params),
    Section("rl-ac-macro", "Actor-critic with macro actions, encoding 0 (Table 6.5)", ("rl-ac-macro",),
            ("setup", "difficulty"), _setup_key, lambda p: (p.label, p.difficulty), RL_REASON),
    Section("rl-encodings", "Questing state encodings, hard (Table 6.6)", ("rl-encodings", "rl-encodings-distinct"),
            ("setup", "parameters", "encoding"), lambda m: (m.label, _shared(m), m.value("questing.encoding")),
            lambda p: (p.label, SHARING.get(p.params.get("shared"), "-"), p.params["encoding"]),
            RL_REASON),
    Section("rl-hpo-direct", "TPE over the direct actor-critic's learning rates and widths, rl-rl-random, hard "
            "(Tables 5.2, 6.9; the best trial of each library)", ("rl-hpo-direct", "rl-hpo-direct-optuna"),
            ("setup", "study"), lambda m: (m.label, m.study), lambda p: (p.label, "rl-hpo-direct"), RL_REASON,
            published_filter=lambda p: p.source == "Table 6.9" and p.win_rate == 95.3,
            pick=_best_per(lambda m: (m.study,))),
    Section("best-players", "Best players, hard (Table 6.10)", ("best-players",), ("setup",),
            lambda m: (m.label,), lambda p: (p.label,), RL_REASON,
            published_filter=lambda p: p.params.get("shared") is not True),
)


def verdict(m: Measured | None, p: Published | None) -> str:
    """*agrees* when the intervals overlap, else *differs*; *not run* without a trial."""
    if m is None:
        return "*not run*"
    if p is None or math.isnan(p.win_rate):
        return "no published value"
    half = p.interval or 0.0
    if m.low * 100 <= p.win_rate + half and p.win_rate - half <= m.high * 100:
        return "*agrees*"
    return "*differs*"


def _ours(m: Measured | None) -> str:
    if m is None:
        return "-"
    text = f"{100 * m.win_rate:.1f} [{100 * m.low:.1f}, {100 * m.high:.1f}] ({m.games:,})"
    if m.chosen:
        test = m.chosen["test"]
        (low, high), games = test["wilson_95"], test["games"]
        text += f"; test {100 * test['win_rate']:.1f} [{100 * low:.1f}, {100 * high:.1f}] ({games:,})"
    return text


def _theirs(p: Published | None) -> str:
    if p is None:
        return "-"
    if math.isnan(p.win_rate):
        return f"peak only ({p.source})"
    return f"{p.win_rate:g} ± {p.interval:g} ({p.source})" if p.interval is not None else f"{p.win_rate:g} ({p.source})"


def _cell(value) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "on", False: "off", None: "-"}[value]
    return str(value)


def section_markdown(section: Section, runs: dict[str, StudyRun]) -> list[str]:
    """The table of one experiment."""
    lines = [f"## {section.title}", ""]
    studies = [runs[name] for name in section.studies if name in runs]
    trials = [m for run in studies if run.trials for m in run.trials]
    scale = ", ".join(
        f"`{run.spec.name}`: " + ("not run" if run.trials is None else f"{len(run.trials)} trials")
        for run in studies
    )
    lines += [f"Studies: {scale or 'none'}.", ""]
    published = [p for p in PUBLISHED if p.experiment == section.experiment and section.published_filter(p)]
    by_key = {section.theirs(p): p for p in published}
    rows = []
    for m in section.pick(trials):
        rows.append((section.ours(m), m, by_key.pop(section.ours(m), None)))
    rows += [(key, None, p) for key, p in by_key.items()]  # published, not run here
    rows.sort(key=lambda row: tuple(map(_order, row[0])))
    extra = ([section.detail[0]] if section.detail else []) + ["ms/game"]
    extra += ["training s"] if any(m.training_seconds for m in trials) else []
    if section.experiment == "random-baseline":
        extra.append("RULES.md")
    header = [*section.columns, "ours: win % [95% CI] (games)", *extra, "published", "verdict"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * (len(section.columns) + len(extra) + 3))
    for key, m, p in rows:
        cells = [_cell(k) for k in key] + [_ours(m)]
        if section.detail:
            cells.append(_cell(section.detail[1](m)) if m else "-")
        cells.append(f"{1000 * m.seconds_per_game:.2f}" if m else "-")
        if "training s" in extra:
            cells.append(f"{m.training_seconds:.0f}" if m and m.training_seconds else "-")
        if section.experiment == "random-baseline":
            cells.append(f"{RULES_RANDOM[key[0]]:g}")
        cells += [_theirs(p), verdict(m, p)]
        lines.append("| " + " | ".join(cells) + " |")
    oracle = any(m.oracle for m in trials)
    lines += ["", f"Where a row differs: {section.reason}."
              + (" ORACLE rows read the true deck order: an upper bound, not an honest agent." if oracle else "")]
    return lines + [""]


def _order(value) -> tuple:
    """Table order: difficulties easy to hard, numbers by size, the rest alphabetically."""
    if value in DIFFICULTIES:
        return (0, DIFFICULTIES.index(value), "")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (1, value, "")
    return (2, 0, str(value))


THESIS_BEST = next(p for p in PUBLISHED if p.experiment == "best-players" and p.win_rate == 95.3)


def best_markdown(run: StudyRun) -> list[str]:
    """The best honest agent on hard (study ``best-hard``): its test figure against the thesis's best."""
    lines = ["## Beyond the thesis: the best honest agent on hard", ""]
    best = next((m for m in run.trials or [] if m.chosen), None)
    if best is None:
        return lines + ["`best-hard`: not run, or its chosen trial not tested yet.", ""]
    test, validation = best.chosen["test"], best.chosen["validation"]
    win, (low, high), games = test["win_rate"], test["wilson_95"], test["games"]
    bar = THESIS_BEST.win_rate
    outcome = "above" if 100 * low > bar else "not above"
    command = f"lotr eval --config studies/best/agent.toml --games {games} --seed {test['seed']}"  # hard
    return lines + [
        f"Study `best-hard`, trial {best.number}: `{re.sub(r' weights=[^;)]*', '', str(best.config))}`.",
        "",
        f"Test: **{100 * win:.2f}% [{100 * low:.2f}, {100 * high:.2f}] on {games:,} fresh games** (chosen on "
        f"validation, {100 * validation['win_rate']:.2f}% on {validation['games']:,} other games; search figure "
        f"{100 * best.win_rate:.1f}% on {best.games:,} games, optimistic); the thesis's best, "
        f"{_theirs(THESIS_BEST)}: our interval is {outcome} {bar:g}. Reproduce with `{command}`.",
        "",
    ]


# ---- figures ----------------------------------------------------------------------------------------------------


def _figure(path: Path, draw: Callable) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4))
    draw(axes)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)
    return path


def _lines(axes, trials: list[Measured], x: str, group: Callable[[Measured], str]) -> None:
    for name in sorted({group(m) for m in trials}):
        points = sorted(((m.value(x), m) for m in trials if group(m) == name), key=lambda point: point[0])
        xs = [v for v, _ in points]
        below = [100 * (m.win_rate - m.low) for _, m in points]
        above = [100 * (m.high - m.win_rate) for _, m in points]
        axes.errorbar(xs, [100 * m.win_rate for _, m in points], yerr=[below, above], capsize=3, marker="o", label=name)


def write_figures(runs: dict[str, StudyRun], folder: Path) -> dict[str, Path]:
    """Win rate vs ppn, vs budget, learning curves, Pareto front: those whose studies ran."""
    folder.mkdir(parents=True, exist_ok=True)
    figures = {}
    ppn = runs.get("mcts-ppn")
    if ppn and ppn.trials:
        def draw_ppn(axes):
            _lines(axes, ppn.trials, "ppn", lambda m: f"{_search(m)}, reduction {_cell(m.value('reduction'))}")
            axes.set(xscale="log", xlabel="playouts per node (budget 200)", ylabel="win rate % (hard)",
                     title="random-mcts-mcts: win rate against ppn")

        figures["mcts-ppn"] = _figure(folder / "mcts-ppn.png", draw_ppn)
    budget = runs.get("mcts-budget")
    if budget and budget.trials:
        best = _best_per(lambda m: (m.oracle, m.value("budget")))(budget.trials)

        def draw_budget(axes):
            _lines(axes, best, "budget", lambda m: f"{_search(m)}, best ppn")
            rows = sorted((p.params["budget"], p.win_rate) for p in PUBLISHED if p.experiment == "mcts-budget")
            axes.plot(*zip(*rows), "k--", marker="s", label="thesis (Table 6.3)")
            axes.set(xlabel="playouts per decision (budget)", ylabel="win rate % (hard)",
                     title="random-mcts-mcts: win rate against budget")

        figures["mcts-budget"] = _figure(folder / "mcts-budget.png", draw_budget)
    trained = [m for name in CURVES if name in runs for m in runs[name].trials or []]
    curves = [(m, m.folder / "curve.csv") for m in trained if m.folder and (m.folder / "curve.csv").is_file()]
    if curves:
        def draw_curves(axes):
            for m, path in curves[:8]:
                with open(path) as file:
                    rows = [r for r in csv.DictReader(file) if r["moving_win_rate"]]
                points = [(int(r["episode"]), float(r["moving_win_rate"])) for r in rows]
                label = f"{m.study} {m.label} enc {m.value('questing.encoding')}"
                axes.plot([e for e, _ in points], [100 * a for _, a in points], label=label)
            axes.set(xlabel="training episode", ylabel="moving win rate % (hard)", title="learning curves")

        figures["learning-curves"] = _figure(folder / "learning-curves.png", draw_curves)
    pareto = runs.get("mcts-hpo-pareto")
    if pareto and pareto.trials:
        from matplotlib.ticker import NullFormatter

        def draw_pareto(axes):
            axes.scatter([1000 * m.seconds_per_game for m in pareto.trials], [100 * m.win_rate for m in pareto.trials],
                         s=14, color="0.6", label="trials")
            front = sorted(pareto.pareto, key=lambda m: m.seconds_per_game)
            axes.plot([1000 * m.seconds_per_game for m in front], [100 * m.win_rate for m in front], "r-o",
                      label="Pareto front")
            axes.set(xscale="log", xlabel="ms per game (one core)", ylabel="win rate % (hard)",
                     title="honest random-mcts-mcts: win rate against time")
            axes.xaxis.set_minor_formatter(NullFormatter())  # the minor labels of a short log axis overlap

        figures["mcts-hpo-pareto"] = _figure(folder / "pareto-front.png", draw_pareto)
    return figures


# ---- the document -----------------------------------------------------------------------------------------------


def write_report(study_files: list[Path], out: Path, root: Path = Path(".")) -> Path:
    """Read the studies (default local stores in ``root``); write ``out`` and its figures (``figures/`` beside it)."""
    runs = {}
    for path in study_files:
        run = read_study(Path(path), root)
        runs[run.spec.name] = run
    figures = write_figures(runs, out.parent / "figures")
    lines = [
        "# Results: this pipeline next to the thesis",
        "",
        f"Generated by `lotr report` on {datetime.date.today().isoformat()} (code {code_version()}) from the study "
        "files in `studies/`, run on a 2-core machine at the scale each section states (trials, games per trial, "
        "training episodes). Win rates in percent with their 95% Wilson interval and games; the thesis's with its "
        "normal half-width. A row *agrees* when the intervals overlap.",
        "",
        "| study | trials | games per trial | training episodes | sampler |",
        "|---|---|---|---|---|",
    ]
    for name, run in runs.items():
        spec = run.spec
        episodes = f"{spec.episodes:,}" if spec.trains else "-"
        count = "not run" if run.trials is None else str(len(run.trials))
        count += f" (+{run.pruned} pruned)" if run.pruned else ""
        lines.append(f"| `{name}` | {count} | {spec.games:,} | {episodes} | {spec.sampler} |")
    lines.append("")
    for section in SECTIONS:
        if any(name in runs for name in section.studies):
            lines += section_markdown(section, runs)
            if section.experiment in figures:
                lines += [f"![{section.experiment}](figures/{figures[section.experiment].name})", ""]
    if "best-hard" in runs:
        lines += best_markdown(runs["best-hard"])
    if "learning-curves" in figures:
        lines += ["## Learning curves", "", "![learning curves](figures/learning-curves.png)", ""]
    pareto = runs.get("mcts-hpo-pareto")
    if pareto and pareto.trials:
        lines += ["## Win rate against time per game (mcts-hpo-pareto, two objectives)", "",
                  "| trial | win % [95% CI] (games) | ms/game | parameters |", "|---|---|---|---|"]
        for m in sorted(pareto.pareto, key=lambda m: m.seconds_per_game):
            params = ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}" for k, v in m.params.items())
            lines.append(f"| {m.number} | {_ours(m)} | {1000 * m.seconds_per_game:.2f} | {params} |")
        lines += ["", "![Pareto front](figures/pareto-front.png)", ""]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    return out

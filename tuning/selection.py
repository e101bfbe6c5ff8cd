"""Which trial is best, decided once and recorded the same everywhere: validation, test, export, registry.

A trial's search figure is optimistic: it is the best of many noisy figures on
the same deals. So the top ``validation.top_k`` complete trials (the Pareto
front's best win rates with two objectives) are played on validation deals,
the best there is chosen, and it alone is played on test deals: the test
figure is the one reported (console, MLflow parent run and model version,
export), with the validation and search figures beside it. The three deal
sets are disjoint (the study file's seeds differ).

Each figure is stored in the study's user attributes as soon as its games are
all played (``validation``: one entry per candidate; ``selection``: the choice
and its test), and logged on the trial's own MLflow run; an interrupted or
repeated run plays only what is missing. An interrupted evaluation stores
nothing, so nothing is exported or registered from a partial one.
"""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import optuna
from optuna.trial import FrozenTrial, TrialState

from agents.evaluation import Evaluation, evaluate_setup
from agents.interruption import deferred
from agents.setup import Setup
from tuning.agent_model import register_agent
from tuning.study_plots import write_study_figures
from tuning.study_spec import StudySpec
from tuning.tracking import Tracker

FIGURES = ("test", "validation", "search")  # the figures of a chosen trial, in its export's metadata
FIGURE_FIELDS = ("win_rate", "wilson_95", "games", "seed")


def candidates(study: optuna.Study, spec: StudySpec) -> list[FrozenTrial]:
    """The complete trials compared on validation deals: the top ``validation.top_k`` by search win rate, one
    per parameter set (a sampler may propose a set again; on the same seed and deals it trains and plays alike,
    so only its best-ranked trial is compared)."""
    complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    pool = study.best_trials if len(spec.metrics) > 1 and complete else complete
    top: dict[tuple, FrozenTrial] = {}
    for trial in sorted(pool, key=lambda t: (-t.values[0], t.number)):
        top.setdefault(tuple(sorted(trial.params.items())), trial)
        if len(top) == spec.validation_top_k:
            break
    return list(top.values())[: spec.validation_top_k]


def is_finished(study: optuna.Study, spec: StudySpec, n_trials: int, target: Path) -> bool:
    """Whether a run would have nothing to do: the budget met, nothing running, and (when the study
    exports) the current choice tested, registered and exported to ``target``."""
    states = [t.state for t in study.get_trials(deepcopy=False)]
    if states.count(TrialState.COMPLETE) + states.count(TrialState.PRUNED) < n_trials or TrialState.RUNNING in states:
        return False
    if spec.validation_top_k == 0 or TrialState.COMPLETE not in states:
        return True
    chosen = study.user_attrs.get("selection")
    return (chosen is not None and chosen["candidates"] == [t.number for t in candidates(study, spec)]
            and "model" in chosen and _exported(target, chosen))


def _exported(target: Path, chosen: dict) -> bool:
    try:
        metadata = Setup.read_mapping(target).get("metadata", {})
    except ValueError:
        return False
    return metadata.get("trial") == chosen["trial"] and metadata.get("model") == chosen["model"]


def finish(spec: StudySpec, study: optuna.Study, tracker: Tracker, parent: str, workers: int,
           target: Path, trials_folder: Path) -> dict | None:
    """Figures of the study on its parent run (drawn in ``trials_folder``; not with ``[mlflow] figures = false``);
    then validation, test, export and registry (see the module docstring). Returns the study's ``selection`` record,
    or None when nothing is chosen."""
    if spec.figures and study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        for path in write_study_figures(study, spec, trials_folder / "figures"):
            tracker.artifact(parent, path, "figures")
    top = candidates(study, spec)
    if not top:
        return None
    validated = {int(k): v for k, v in study.user_attrs.get("validation", {}).items()
                 if v["seed"] == spec.validation_seed and v["games"] == spec.validation_games}
    for rank, trial in enumerate(top, 1):
        if trial.number not in validated:
            validated[trial.number] = _play(spec, trial, spec.validation_games, spec.validation_seed, workers,
                                            f"validation {rank}/{len(top)}")
            with deferred():
                study.set_user_attr("validation", {str(k): v for k, v in validated.items()})
                _log_figure(tracker, trial, "validation", validated[trial.number])
    best = max(top, key=lambda t: (validated[t.number]["win_rate"], t.values[0], -t.number))
    chosen = study.user_attrs.get("selection") or {}
    if chosen.get("trial") != best.number or chosen["test"]["seed"] != spec.test_seed \
            or chosen["test"]["games"] != spec.test_games:
        test = _play(spec, best, spec.test_games, spec.test_seed, workers, "test")
        chosen = {"trial": best.number, "candidates": [t.number for t in top],
                  "search": _search_figure(spec, best), "validation": validated[best.number], "test": test,
                  "mlflow_run": best.user_attrs.get("mlflow_run"), "code_version": best.user_attrs.get("code_version"),
                  "date": best.user_attrs.get("started")}
        with deferred():
            study.set_user_attr("selection", chosen)
            study.set_user_attr("chosen", describe_choice(chosen))
            _log_figure(tracker, best, "test", test)
    chosen = {**chosen, "candidates": [t.number for t in top]}
    with deferred():
        if "model" not in chosen or chosen.get("registered_for") != chosen["trial"]:
            export(study, chosen, target)
            chosen["model"] = registered(tracker, spec.name, chosen["trial"]) or register_agent(
                tracker.tracking_uri, chosen["mlflow_run"] or parent, spec.name, target,
                *_registry_entry(spec.name, chosen, best, parent))
            chosen["registered_for"] = chosen["trial"]
        study.set_user_attr("selection", chosen)
        export(study, chosen, target)
        _log_selection(tracker, parent, chosen, validated, target)
    return chosen


def registered(tracker: Tracker, name: str, trial: int) -> str | None:
    """The model version already registered for this trial of the study (by a run killed before it could
    record it), else None: a re-run does not register the same agent twice."""
    versions = tracker.client.search_model_versions(f"name = '{name}' and tag.trial = '{trial}'")
    if not versions:
        return None
    version = max(versions, key=lambda v: int(v.version)).version
    tracker.client.set_registered_model_alias(name, "best", version)
    return f"models:/{name}/{version}"


def _play(spec: StudySpec, trial: FrozenTrial, games: int, seed: int, workers: int, label: str) -> dict:
    """All ``games`` of ``seed`` with the trial's setup, with progress; a figure for the record."""
    setup = Setup.from_mapping(trial.user_attrs["config"], source=f"trial {trial.number}")
    print(f"[{spec.name}] {label}: trial {trial.number} on {games:,} deals of seed {seed}{spec.seats_label(games)}",
          file=sys.stderr, flush=True)
    played: Evaluation = evaluate_setup(setup, games=games, seed=seed, options=spec.trial_options(trial.params),
                                        workers=workers, progress=True, seats=spec.seat,
                                        executor_kind=spec.executor, address=spec.ray_address)
    figure = {"win_rate": played.win_rate, "wilson_95": list(played.wilson_95), "games": played.games, "seed": seed}
    if played.seats:
        figure["seats"] = played.seats
    print(f"[{spec.name}] {label}: trial {trial.number} won {describe(figure)}", file=sys.stderr, flush=True)
    return figure


def describe(figure: dict) -> str:
    """``67.0% [61.5, 72.1] on 300 games of seed 2000003``."""
    low, high = figure["wilson_95"]
    seats = len(figure.get("seats", {})) or 1
    deals = f" ({figure['games'] // seats:,} deals x {seats} seats)" if seats > 1 else ""
    text = (f"{100 * figure['win_rate']:.1f}% [{100 * low:.1f}, {100 * high:.1f}] on {figure['games']:,} games"
            f"{deals} of seed {figure['seed']}")
    for seat, counts in figure.get("seats", {}).items():  # a two-player game: each seat's own figure
        seat_low, seat_high = counts["wilson_95"]
        text += f", {seat} seat {100 * counts['win_rate']:.1f}% [{100 * seat_low:.1f}, {100 * seat_high:.1f}]"
    return text


def describe_choice(chosen: dict) -> str:
    """One line: the chosen trial, its test figure, and how it was chosen."""
    return (f"trial {chosen['trial']}, chosen on validation among trials {chosen['candidates']}: test win rate "
            f"{describe(chosen['test'])}; validation {describe(chosen['validation'])}; search "
            f"{describe(chosen['search'])} (optimistic)")


def _registry_entry(study: str, chosen: dict, trial: FrozenTrial, parent: str) -> tuple[str, dict]:
    """The model version's description and tags (the chosen trial's run is its source; the parent run, the
    study's invocation that chose it, is a tag)."""
    setup = trial.user_attrs["config"]["setup"]
    tags = {"study": study, "trial": chosen["trial"], "setup": setup,
            "mlflow_run": chosen["mlflow_run"], "parent_run": parent, "code_version": chosen["code_version"]}
    for kind in ("test", "validation"):
        tags.update({f"{kind}_{key}": chosen[kind][key] for key in ("win_rate", "games", "seed")})
    return f"{setup}: {describe_choice(chosen)}", tags


def _search_figure(spec: StudySpec, trial: FrozenTrial) -> dict:
    return {"win_rate": trial.user_attrs.get("win_rate", trial.values[0]),  # its games' (the objective may be another)
            "wilson_95": trial.user_attrs["wilson_95"],
            "games": trial.user_attrs.get("games", spec.games),  # a two-player game's deals count once per seat
            "seed": spec.seed}


def _log_figure(tracker: Tracker, trial: FrozenTrial, kind: str, figure: dict) -> None:
    """``<kind>_win_rate`` (and interval, games) on the trial's own MLflow run."""
    run = trial.user_attrs.get("mlflow_run")
    if run:
        low, high = figure["wilson_95"]
        tracker.log(run, metrics={f"{kind}_win_rate": figure["win_rate"], f"{kind}_low": low, f"{kind}_high": high,
                                  f"{kind}_games": figure["games"]})


def _log_selection(tracker: Tracker, parent: str, chosen: dict, validated: dict, target: Path) -> None:
    """The choice on the parent run: its figures, every candidate's validation figure, the export."""
    metrics = {"chosen_trial": chosen["trial"]}
    for kind in ("search", "validation", "test"):
        low, high = chosen[kind]["wilson_95"]
        metrics.update({f"{kind}_win_rate": chosen[kind]["win_rate"], f"{kind}_low": low, f"{kind}_high": high})
    metrics.update({f"validation_win_rate.trial-{n}": validated[n]["win_rate"] for n in chosen["candidates"]})
    tracker.log(parent, metrics=metrics, tags={"chosen_trial": chosen["trial"], "chosen_run": chosen["mlflow_run"],
                                               "model": chosen["model"]})
    tracker.artifact(parent, target)


def exported_figures(metadata: dict) -> dict | None:
    """The test, validation and search figures an export's metadata records (``export``), as in the study's
    ``selection`` record; None when the metadata lacks one of them."""
    if any(f"{kind}_{field}" not in metadata for kind in FIGURES for field in FIGURE_FIELDS):
        return None
    return {kind: {field: metadata[f"{kind}_{field}"] for field in (*FIGURE_FIELDS, "seats")
                   if f"{kind}_{field}" in metadata} for kind in FIGURES}


def export(study: optuna.Study, chosen: dict, target: Path) -> Path:
    """Write the chosen trial's agent configuration with its provenance (the study's ``selection`` record)
    and its RL weights beside it; ``lotr tune export`` calls it with the stored record alone."""
    trial = study.get_trials(deepcopy=False)[chosen["trial"]]
    setup = Setup.from_mapping(trial.user_attrs["config"], source=f"trial {trial.number}")
    metadata = {"study": study.study_name, "trial": trial.number}
    if trial.user_attrs.get("options") is not None:
        metadata["options"] = trial.user_attrs["options"]
    for kind in FIGURES:
        figure = chosen[kind]
        metadata.update({f"{kind}_{field}": figure[field] for field in FIGURE_FIELDS})
        if figure.get("seats"):  # a two-player game: each seat's counts
            metadata[f"{kind}_seats"] = figure["seats"]
    metadata.update({"candidates": chosen["candidates"], "code_version": chosen["code_version"] or "unknown",
                     "trial_started": chosen["date"] or "unknown", "mlflow_run": chosen["mlflow_run"] or "none",
                     "model": chosen.get("model", "not registered yet"),
                     "exported": datetime.datetime.now().isoformat(timespec="seconds")})
    setup.dump_with_weights(target, metadata=metadata)
    return target

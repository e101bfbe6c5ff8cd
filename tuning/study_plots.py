"""The study's figures for its parent run: the trials table and Optuna's plots, as PNG and interactive HTML."""

from __future__ import annotations

import warnings
from pathlib import Path

import optuna

from tuning.study_file import StudySpec

PLOTS = ("optimization_history", "param_importances", "parallel_coordinate")


def write_study_figures(study: optuna.Study, spec: StudySpec, folder: Path) -> list[Path]:
    """``trials.csv`` and each plot that the finished trials allow (PNG + HTML); returns the files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from optuna import visualization
    from optuna.visualization import matplotlib as static

    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / "trials.csv"]
    study.trials_dataframe().to_csv(files[0], index=False)
    names = PLOTS + (("pareto_front",) if len(spec.metrics) > 1 else ())
    options = {"target": lambda t: t.values[0], "target_name": "win_rate"} if len(spec.metrics) > 1 else {}
    for name in names:
        kwargs = {"target_names": list(spec.metrics)} if name == "pareto_front" else options
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(visualization, f"plot_{name}")(study, **kwargs).write_html(folder / f"{name}.html")
                getattr(static, f"plot_{name}")(study, **kwargs)
                plt.gcf().savefig(folder / f"{name}.png", dpi=110, bbox_inches="tight")
                plt.close("all")
        except (ValueError, RuntimeError, ZeroDivisionError):  # too few finished trials for this plot
            plt.close("all")
            continue
        files += [folder / f"{name}.html", folder / f"{name}.png"]
    return files

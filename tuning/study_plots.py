"""The study's figures for its parent run: the trials table and Optuna's plots, as PNG and interactive HTML, and the
histogram of its trials' training times where they train (the thesis's Figure 6.5)."""

from __future__ import annotations

import warnings
from pathlib import Path

import optuna

from gamecore.atomic import atomic_path, write_atomically
from tuning.study_spec import StudySpec

PLOTS = ("optimization_history", "param_importances", "parallel_coordinate")


def write_study_figures(study: optuna.Study, spec: StudySpec, folder: Path) -> list[Path]:
    """``trials.csv`` and each plot that the finished trials allow (PNG + HTML); returns the files. A space of one
    parameter has no importances plot (its importance is 1; computing it loads scikit-learn, about 2 s)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from optuna import visualization
    from optuna.visualization import matplotlib as static

    folder.mkdir(parents=True, exist_ok=True)
    files = [folder / "trials.csv"]
    with atomic_path(files[0]) as temporary:
        study.trials_dataframe().to_csv(temporary, index=False)
    names = tuple(name for name in PLOTS if name != "param_importances" or len(spec.space) > 1)  # one parameter's is 1
    names += ("pareto_front",) if len(spec.metrics) > 1 else ()
    options = ({"target": lambda t: t.values[0], "target_name": spec.metrics[0]} if len(spec.metrics) > 1
               else {"target_name": spec.metrics[0]})
    for name in names:
        kwargs = {"target_names": list(spec.metrics)} if name == "pareto_front" else options
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                html = getattr(visualization, f"plot_{name}")(study, **kwargs).to_html()
                write_atomically(folder / f"{name}.html", html)
                getattr(static, f"plot_{name}")(study, **kwargs)
                readable_axes(plt.gcf())
                with atomic_path(folder / f"{name}.png") as temporary:
                    plt.gcf().savefig(temporary, format="png", dpi=110, bbox_inches="tight")
                plt.close("all")
        except (ValueError, RuntimeError, ZeroDivisionError):  # too few finished trials for this plot
            plt.close("all")
            continue
        files += [folder / f"{name}.html", folder / f"{name}.png"]
    seconds = [t.user_attrs["training_seconds"] for t in study.get_trials(deepcopy=False)
               if "training_seconds" in t.user_attrs]
    if seconds:
        figure, axes = plt.subplots(figsize=(6, 3.5))
        axes.hist(seconds, bins=20)
        axes.set(xlabel="training seconds", ylabel="trials", title=f"{spec.name}: trial training times")
        files.append(folder / "trial_times.png")
        with atomic_path(files[-1]) as temporary:
            figure.savefig(temporary, format="png", dpi=110, bbox_inches="tight")
        plt.close(figure)
    return files


def readable_axes(figure) -> None:
    """Axes a person can read: room for each of a parallel-coordinate plot's axes, plain numbers on log axes
    (0.1, 0.2, 0.5, 1, ...; not 2 x 10^-1) and no minor labels, and tick labels on a white ground where lines cross them."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axes = [a for a in figure.axes if a.get_label() != "<colorbar>"]
    figure.set_size_inches(max(figure.get_size_inches()[0], 1.6 * len(axes) + 2), 5)
    for axis in axes:
        if axis.get_yscale() == "log":
            axis.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            axis.yaxis.set_minor_formatter(NullFormatter())
        if len(axes) > 2:  # parallel coordinates: twin axes whose labels sit on the lines
            for label in axis.get_yticklabels():
                label.set_bbox({"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1})


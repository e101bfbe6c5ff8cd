"""Hygiene that lasts: ruff finds nothing, no module imports itself through others (even inside a package, even
from inside a function; an import under ``if TYPE_CHECKING:`` runs nowhere and is not counted), and no module
outside the games' compiled kernels grows past ``MAX_LINES``."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("gamecore", "gametune", "agents", "tuning", "lotr_lab", *sorted(p.name for p in ROOT.glob("*_sim")))
MAX_LINES = 500
COMPILED_KERNELS = {  # the games' compiled rules (Numba): one long file per game is their convention
    "lotr_sim/rules.py", "carcassonne_sim/kernels.py", "loveletter_sim/kernels.py", "loveletter_sim/dp.py",
}
KNOWN_CIRCLES: set[frozenset[str]] = set()  # circles left to undo (the test fails once one is gone: then drop it)
KNOWN_LONG: set[str] = set()  # modules over MAX_LINES left to split by concept


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The project's modules that ``path`` imports, anywhere in it (a function's import too), except under
    ``if TYPE_CHECKING:``; ``from package import module`` names the module, not the package."""
    tree = ast.parse(path.read_text())
    typing_only = {id(node) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(block.test) for node in ast.walk(block)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                       for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target:
                found.add(target)
    return found


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start, targets in graph.items():
        if start in index:
            continue
        work = [(start, iter(sorted(targets)))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], capture_output=True,
                          text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-1000:]


def test_no_module_imports_itself_through_others():
    known = modules()
    graph = {name: imports(path, known) - {name} for name, path in known.items()}
    found = set(circles(graph))
    assert found - KNOWN_CIRCLES == set(), [sorted(c) for c in found - KNOWN_CIRCLES]
    assert KNOWN_CIRCLES - found == set(), "a known circle is gone: drop it from KNOWN_CIRCLES"


def test_the_circle_finder_finds_a_circle_inside_a_function():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [frozenset({"a", "b", "c"})]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_grows_past_the_limit(package):
    long = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES and name not in COMPILED_KERNELS:
            long[name] = lines
    assert set(long) - KNOWN_LONG == set(), long
    assert {name for name in KNOWN_LONG if name.startswith(f"{package}/")} <= set(long), \
        "a known long module is short now: drop it from KNOWN_LONG"


def test_generic_code_imports_no_game():
    """gamecore, agents, tuning and gametune reach a game through ``gamecore.load`` only (a game's own code, its lab
    code included, is named by the game's declarations)."""
    known = modules()
    games = {name.partition(".")[0] for name in known if name.partition(".")[0].endswith(("_sim", "_lab"))}
    generic = {name: path for name, path in known.items()
               if name.partition(".")[0] in ("gamecore", "agents", "tuning", "gametune")}
    found = {name: sorted(target for target in imports(path, known) if target.partition(".")[0] in games)
             for name, path in generic.items()}
    assert not {name: targets for name, targets in found.items() if targets}


def test_a_game_s_packages_are_found_from_the_game_alone():
    import gamecore
    from tuning.agent_model import game_packages

    assert game_packages(gamecore.load("lotr")) == ["lotr_lab", "lotr_sim"]  # its learners and commands name lotr_lab
    assert game_packages(gamecore.load("loveletter")) == ["loveletter_sim"]

"""The conformance check of a game: what every agent, environment and study relies on, checked on the game alone.

``check_game("nim")`` (or a ``Game``) runs every check in ``CHECKS`` and raises ``ConformanceError`` listing
each one that fails; a game's author calls it in their own tests (``examples/nim/tests``). Per game:

- the kernels the contract asks for (``gamecore.contract``), the ``Game`` fields, and every "module:function" it
  names importing;
- random games end and keep what the game says it conserves (``Game.invariants``), rewards in [0, 1];
- random play through every action space ends; each mask marks exactly the legal actions and decodes to them;
- encoders read no hidden information and stay in their bounds; ``determinize`` keeps what the player sees;
- a search with one seed decides the same on states that differ only in hidden information (honesty);
- illegal actions fail in one line and change nothing, in the state and in the environment;
- Gymnasium's ``check_env``, PettingZoo's ``api_test``, and, where OpenSpiel is installed, its
  ``random_sim_test`` and information-state resampling.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

import numpy as np

import gamecore
from agents.environments import GameAECEnv, GameEnv, environment_id
from agents.search import compiled
from agents.specs import AgentSpec
from gamecore.contract import missing
from gamecore.errors import IllegalActionError
from gamecore.interface import Game, imported, targets
from gamecore.rng import mix64

RANDOM_GAMES = 3  # random games walked per game
MAX_DECISIONS = 5_000  # a random game longer than this does not end
STATES = 40  # decision states checked by the slower checks
SEARCH_BUDGET = 64  # the honesty check's MCTS playouts per decision
SENTINEL = 7.5  # written past an encoding's end: an encoder that writes beyond its size changes it


class ConformanceError(AssertionError):
    """What a game lacks or breaks, one finding per line."""


class Skipped(Exception):
    """A check that cannot run here (an optional package is not installed)."""


def expect(condition: object, problem: str) -> None:
    """Raise ``ConformanceError(problem)`` unless ``condition`` holds."""
    if not condition:
        raise ConformanceError(problem)


def check_game(game: str | Game, checks: tuple[str, ...] | None = None) -> list[str]:
    """Run the conformance checks (``checks``: names in ``CHECKS``, default all) on ``game``; return the names of
    those skipped (an optional package missing); ConformanceError listing every failed check otherwise."""
    game = gamecore.load(game)
    failures, skipped = [], []
    for name in checks or tuple(CHECKS):
        try:
            CHECKS[name](game)
        except Skipped as reason:
            skipped.append(f"{name} ({reason})")
        except Exception as error:  # noqa: BLE001  (every failure is reported, whatever raised it)
            failures.append(f"{name}: {type(error).__name__}: {str(error).strip().splitlines()[0] if str(error) else ''}")
    if failures:
        raise ConformanceError(f"game {game.name} fails {len(failures)} conformance check(s):\n" + "\n".join(failures))
    return skipped


# ---- states the checks walk ------------------------------------------------------------------------------------


def options_of(game: Game) -> np.ndarray:
    return game.option_codes(game.check_options({}))


@functools.cache
def walk(game: Game) -> tuple[np.ndarray, ...]:
    """The flat states at every decision of ``RANDOM_GAMES`` games of the game's first (random) policy, each
    finished game's last state included."""
    K = game.kernels
    rs = np.array([mix64(np.uint64(11))], np.uint64)
    act, err = np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    S, scratch = np.empty(K.STATE_SIZE, np.int64), np.empty(K.STATE_SIZE, np.int64)
    states = []
    for deal in range(RANDOM_GAMES):
        K.deal_game(S, np.uint64(deal), options_of(game))
        for _ in range(MAX_DECISIONS):
            states.append(S.copy())
            if K.is_over(S):
                break
            K.playout_action(S, 0, rs, act, scratch)
            expect(K.apply(S, act, err) == K.OK, f"the random policy chose an illegal action: {act}")
        else:
            raise ConformanceError(f"a random game of {game.name} did not end in {MAX_DECISIONS} decisions")
    return tuple(states)


def decisions(game: Game, count: int = STATES) -> list[np.ndarray]:
    """Up to ``count`` decision states of ``walk``, spread over its games."""
    states = [S for S in walk(game) if not game.kernels.is_over(S)]
    return states[:: max(1, len(states) // count)][:count]


def encoding(game: Game, S: np.ndarray, number: int, player: int) -> np.ndarray | None:
    """Encoder ``number`` of what ``player`` sees of ``S``, None where it covers no role of that player."""
    encoder = game.encoders[number]
    role = game.roles[player] if game.by_seat else game.roles[game.kernels.role(S)]
    if role not in encoder.sizes:
        return None
    out = np.full(encoder.sizes[role] + 3, SENTINEL, np.float32)
    game.kernels.encode(S, number, player, out[:-3])
    expect((out[-3:] == SENTINEL).all(), f"encoder {encoder.name} writes past its size {encoder.sizes[role]}")
    return out[:-3]


def redrawn(game: Game, S: np.ndarray, player: int, seed: int) -> np.ndarray:
    D = S.copy()
    game.kernels.determinize(D, player, np.array([mix64(np.uint64(seed))], np.uint64))
    return D


def one_line(error: Exception) -> bool:
    return "\n" not in str(error) and bool(str(error))


# ---- the checks ------------------------------------------------------------------------------------------------


def interface(game: Game) -> None:
    """The kernels and the ``Game`` fields are all there and agree; every "module:function" imports."""
    expect(not missing(game), f"missing: {'; '.join(missing(game))}")
    K = game.kernels
    expect(len(game.roles) == K.N_ROLES and game.policies and game.n_players in (1, 2),
           "roles, policies or players: N_ROLES roles, a policy, one or two players")
    expect(game.by_seat == (len(game.roles) == game.n_players), "ROLES_BY_SEAT: the roles are the seats or not")
    expect(game.state_from_core is not None, "state_from_core: the OpenSpiel form and these checks need it")
    expect(game.encoders and game.action_spaces, "the environments need an encoder and an action space")
    for described in (*game.encoders, *game.action_spaces):
        expect(set(described.sizes) <= set(game.roles) and min(described.sizes.values()) > 0,
               f"{described.name}'s sizes: positive, by role")
    for encoder in game.encoders:  # a layout by slot (net = "slots") covers the encoding exactly
        if encoder.layout:
            global_size, slots, slot_size = encoder.layout
            expect(global_size + slots * slot_size == max(encoder.sizes.values()), f"{encoder.name}'s layout")
            for space in game.action_spaces:
                expect(not space.per_slot or slots * space.per_slot == max(space.sizes.values()), space.name)
    for where, target in targets(game):
        expect(callable(imported(target)), f"{where} = {target!r} imports no function")


def random_games(game: Game) -> None:
    """Random games end and keep what the game conserves; rewards lie in [0, 1] (summing to 1 for two)."""
    K = game.kernels
    broken = imported(game.invariants) if game.invariants else (lambda S: [])
    ends = 0
    for S in walk(game):
        expect(broken(S) == [], f"{broken(S)}")
        if K.is_over(S):
            ends += 1
            rewards = [K.reward(S, p) for p in range(game.n_players)]
            expect(all(0.0 <= r <= 1.0 for r in rewards), f"rewards {rewards} outside [0, 1]")
            expect(game.n_players == 1 or sum(rewards) == 1.0, f"rewards {rewards} do not sum to 1")
            expect(game.state_from_core(S).is_over, "state_from_core of a finished game is not over")
    expect(ends == RANDOM_GAMES, f"{ends} of {RANDOM_GAMES} random games ended")


def action_space_play(game: Game) -> None:
    """Uniform choices among each action space's mask, decoded and applied, end a game."""
    K = game.kernels
    rng = np.random.default_rng(5)
    act, err = np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    S, scratch, work = np.empty(K.STATE_SIZE, np.int64), np.empty(K.STATE_SIZE, np.int64), np.empty(K.DECODE_WORK)
    rs = np.array([mix64(np.uint64(3))], np.uint64)
    for number, space in enumerate(game.action_spaces):
        mask = np.zeros(max(space.sizes.values()), np.int8)
        K.deal_game(S, np.uint64(number), options_of(game))
        for _ in range(MAX_DECISIONS):
            if K.is_over(S):
                break
            if game.roles[K.role(S)] in space.sizes:
                K.action_mask(S, number, mask)
                K.decode(S, number, rng.choice(np.flatnonzero(mask)), act, scratch, work)
            else:
                K.playout_action(S, 0, rs, act, scratch)
            expect(K.apply(S, act, err) == K.OK, f"action space {space.name} decoded an illegal action")
        expect(K.is_over(S), f"action space {space.name}: a random game did not end")


def masks(game: Game) -> None:
    """Each mask marks exactly the legal actions (a ``direct`` space each once) and decodes to them."""
    K = game.kernels
    act, err = np.empty(K.ACTION_SIZE, np.int64), np.zeros(4, np.int64)
    scratch, work = np.empty(K.STATE_SIZE, np.int64), np.empty(K.DECODE_WORK)
    checked = 0
    for number, space in enumerate(game.action_spaces):
        mask = np.zeros(max(space.sizes.values()) + 2, np.int8)
        for S in walk(game):
            role = None if K.is_over(S) else game.roles[K.role(S)]
            mask[:] = 1
            K.action_mask(S, number, mask[:-2])
            expect((mask[-2:] == 1).all(), f"action_mask writes past the widest role's {len(mask) - 2}")
            if role not in space.sizes:
                expect(role is not None or not mask[:-2].any(), "a finished game has legal indices")
                continue
            indices = np.flatnonzero(mask[:-2])
            expect(indices.size and indices.max() < space.sizes[role], f"{space.name} at {role}: {indices}")
            state = game.state_from_core(S)
            decoded = []
            for index in indices:
                K.decode(S, number, index, act, scratch, work)
                copy = S.copy()
                expect(K.apply(copy, act, err) == K.OK, f"{space.name} index {index} decodes to an illegal {act}")
                decoded.append(state.action_from_vector(act))
            if space.name == "direct":
                legal = state.legal_actions()
                expect(len(set(decoded)) == len(decoded) == len(legal) and set(decoded) == set(legal),
                       "the direct space's indices are not the legal actions, each once")
            checked += 1
    expect(checked, "no state had an index of any action space")


def hidden_information(game: Game) -> None:
    """Encoders read no hidden information and stay in their bounds."""
    for S in walk(game):
        for player in range(game.n_players):
            worlds = [redrawn(game, S, player, seed) for seed in range(3)]
            for number, encoder in enumerate(game.encoders):
                seen = encoding(game, S, number, player)
                if seen is None:
                    continue
                expect(encoder.low <= seen.min() and seen.max() <= encoder.high, f"{encoder.name} out of bounds")
                for world in worlds:
                    expect(np.array_equal(encoding(game, world, number, player), seen),
                           f"{encoder.name} shows player {player} something determinize changed")


def determinize(game: Game) -> None:
    """``determinize`` keeps what the player sees and the legal actions."""
    K = game.kernels
    for S in decisions(game):
        state = game.state_from_core(S)
        for player in range(game.n_players):
            world = game.state_from_core(redrawn(game, S, player, 1))
            expect(world.observation(player) == state.observation(player), "the player's observation changed")
            expect((world.is_over, world.to_move, world.decision_kind)
                   == (state.is_over, state.to_move, state.decision_kind), "the turn changed")
            if player == K.to_move(S):
                legal, again = state.legal_actions(), world.legal_actions()
                expect(len(legal) == len(again) and (len(legal) > 1000 or list(legal) == list(again)),
                       "the mover's legal actions changed")


def honest_search(game: Game) -> None:
    """The same seed on two states that differ only in what the mover cannot see gives the same choice."""
    K = game.kernels
    search = compiled(K)
    row = AgentSpec.make("mcts", game=game, budget=SEARCH_BUDGET, ppn=4).row()
    differ = []
    for k, S in enumerate(decisions(game, 12)):
        choices = []
        for T in (S, redrawn(game, S, K.to_move(S), 100 + k)):
            act, rs = np.empty(K.ACTION_SIZE, np.int64), np.array([mix64(np.uint64(k))], np.uint64)
            search.decide(T.copy(), row, rs, act, np.empty_like(T))
            choices.append(act)
        if not np.array_equal(*choices):
            differ.append(k)
    expect(not differ, f"states {differ} of 12: another decision on a state differing only in hidden information")


def an_illegal_action(game: Game):
    """A decision state, and a legal action of another state that is illegal at it (as an action and as the
    kernels' vector: LOTR's vectors do not name their stage)."""
    states = [game.state_from_core(S) for S in decisions(game)]
    small = [(state, list(state.legal_actions())) for state in states if len(state.legal_actions()) <= 1000]
    for state, legal in small:
        vectors = {_vector_at(state, action) for action in legal}
        for _, others in small:
            for action in others:
                if action not in legal and _vector_at(state, action) not in vectors | {None}:
                    return state, action
    raise Skipped("no legal action of one state was illegal at another")


def _vector_at(state, action) -> bytes | None:
    try:
        return state.vector(action).tobytes()
    except IllegalActionError:
        return None


def illegal_actions(game: Game) -> None:
    """An illegal action fails in one line and changes nothing, in the state, the kernels and a finished game."""
    state, action = an_illegal_action(game)
    before = state.core_state()
    try:
        state.apply(action)
        raise ConformanceError(f"the illegal action {action} was applied")
    except IllegalActionError as error:
        expect(one_line(error) and np.array_equal(state.core_state(), before), "not one line, or the state changed")
    K = game.kernels
    S, err = state.core_state(), np.zeros(4, np.int64)
    expect(K.apply(S, state.vector(action), err) != K.OK and np.array_equal(S, before), "the kernels applied it")
    over = game.state_from_core(walk(game)[-1])
    try:
        over.apply(action)
        raise ConformanceError("an action was applied to a finished game")
    except IllegalActionError as error:
        expect(one_line(error), "a finished game's refusal is not one line")


def environment_illegal_index(game: Game) -> None:
    """The environment refuses an illegal index in one line (illegal="raise") or scores it a loss."""
    env = GameEnv(game, illegal="raise")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0]) if not info["action_mask"].all() else env.action_space.n
    try:
        env.step(illegal)
        raise ConformanceError("the environment took an illegal index")
    except IllegalActionError as error:
        expect(one_line(error), "the environment's refusal is not one line")
    env = GameEnv(game)
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(illegal)
    expect((reward, terminated, info["illegal"], info["action_mask"].any()) == (-1.0, True, True, False),
           "an illegal index is not a lost, finished episode")


def gymnasium_check_env(game: Game) -> None:
    """Gymnasium's ``check_env`` on ``gymnasium.make("gametune/<game>-v0")``; the mask in ``info``."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(environment_id(game.name))
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    expect(env.observation_space.contains(obs) and info["action_mask"].any(), "reset's observation or mask")
    expect(np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool)), "action_masks()")


def pettingzoo_api_test(game: Game) -> None:
    """PettingZoo's ``api_test`` on the AEC environment."""
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice (agent names like player_0, a render method) is not a failure
        api_test(GameAECEnv(game), num_cycles=200)


def _pyspiel():
    try:
        import pyspiel
    except ImportError:
        raise Skipped("OpenSpiel is not installed: pip install 'open-spiel==2.0.2'") from None
    return pyspiel


def openspiel_random_simulation(game: Game) -> None:
    """OpenSpiel's ``random_sim_test`` on the game's pyspiel form."""
    pyspiel = _pyspiel()
    from gamecore import openspiel

    spiel = openspiel.load(game.name)
    pyspiel.random_sim_test(spiel, num_sims=2, serialize=True, verbose=False)
    expect(spiel.get_type().provides_observation_tensor == (game.observation_encoder is not None),
           "provides_observation_tensor")


def openspiel_resampling(game: Game) -> None:
    """What OpenSpiel's ISMCTSBot asks: a resampled state keeps the information state and tensor."""
    pyspiel = _pyspiel()
    from gamecore import openspiel

    state = openspiel.load(game.name, deals=1, seed=3).new_initial_state()
    state.apply_action(0)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for world in (state.resample_from_infostate(player, sampler) for _ in range(4)):
        expect(world.information_state_string(player) == state.information_state_string(player), "information state")
        expect(world.observation_tensor(player) == state.observation_tensor(player), "observation tensor")
        expect([str(a) for a in world.ours.legal_actions()] == [str(a) for a in state.ours.legal_actions()],
               "legal actions")


CHECKS: dict[str, Callable[[Game], None]] = {
    check.__name__: check for check in (
        interface, random_games, action_space_play, masks, hidden_information, determinize, honest_search,
        illegal_actions, environment_illegal_index, gymnasium_check_env, pettingzoo_api_test,
        openspiel_random_simulation, openspiel_resampling,
    )
}

"""What a card does: come out, forward, the split 7, the backward 8, the Joker; and the legal plays."""

from __future__ import annotations

import contextlib
from dataclasses import replace

from rules.errors import BadOption
from rules.track import cards
from rules.track.actions import PlayCard
from rules.track.errors import IllegalPlay
from rules.track.events import CarCameOut, CarsSwapped
from rules.track.moves import (
    backward_path,
    car_label,
    check_landing,
    forward_path,
    holes_come,
    is_safe,
    move_backward,
    move_forward,
    on_field,
    relocate,
    where_label,
)
from rules.track.state import (
    JOKER_FROM_FINISH,
    JOKER_OUT_PAST_SAFE,
    LANE,
    PITS,
    RING,
    SEED_FIDELITY,
    Car,
    CarMove,
    TrackState,
)

# A way to play a card worth trying: (command, action, the split in reverse order or "", what a quick
# check moves: (car, count), "split", or None when only resolving the play tells)
Candidate = tuple[str, PlayCard, str, tuple[Car, int] | str | None]


def _own_car(state: TrackState, player: str, car_id: str) -> Car:
    wanted = car_id.strip().lower()
    for car in state.cars_of(player):
        if car.id == wanted:
            return car
    ids = ", ".join(c.id for c in state.cars_of(player))
    raise BadOption(f"No car called '{car_id}'. Your cars: {ids}.")


def _pit_car(state: TrackState, player: str, car_id: str) -> Car:
    """The car to bring out of the pits: the one named, or the lowest-numbered one ('pits' or empty)."""
    if car_id.strip().lower() not in ("", "pits"):
        car = _own_car(state, player, car_id)
        if car.where != PITS:
            raise IllegalPlay(f"{car_label(state, car)} is not in the pits.")
        return car
    waiting = [c for c in state.cars_of(player) if c.where == PITS]
    if not waiting:
        raise IllegalPlay("You have no car in the pits.")
    return waiting[0]


def opponent_on_field(state: TrackState, player: str) -> bool:
    """Ruling 9: only opponent cars on the ring count (the white dot and the finish do not). From
    revision 5 only those a Joker may take (seed: "does not have any pieces on the playing field to
    take"): a car safe on its own start spot (ruling start_spot_safe) does not count."""
    others = [c for c in state.cars if c.owner != player and on_field(c)]
    if state.revision >= JOKER_OUT_PAST_SAFE:
        others = [c for c in others if not is_safe(state, c)]
    return bool(others)


def _come_out(state: TrackState, player: str, car_id: str):
    car = _pit_car(state, player, car_id)
    start = state.start_of(player)
    path = ((RING, start),)
    check_landing(state, car, path)
    state, events, move = relocate(state, car, RING, start, 0, path)
    events = (CarCameOut(car_label(state, car), f"hole {start}"),) + events[1:]
    return state, events, (move,)


def _pick_car(state: TrackState, player: str, car_id: str, attempt) -> tuple:
    """Run `attempt(car)` on the named car, or on the only car it works for when none is named."""
    if car_id:
        return attempt(_own_car(state, player, car_id))
    results, first_error = [], None
    for car in state.cars_of(player):
        try:
            results.append((car, attempt(car)))
        except IllegalPlay as exc:
            first_error = first_error or exc
    if len(results) == 1:
        return results[0][1]
    if not results:
        raise first_error or IllegalPlay("No car can make that move.")
    raise BadOption("Which car? " + ", ".join(c.id for c, _ in results) + " can move: add car:c1 (for example).")


def parse_split(text: str) -> tuple[tuple[str, int], ...]:
    """'c1:4,c3:3' -> (('c1', 4), ('c3', 3))."""
    parts = []
    for chunk in text.replace(" ", "").split(","):
        car, sep, count = chunk.partition(":")
        if not sep or not count.isdigit():
            raise BadOption("Write a split 7 as split:c1:4,c3:3 (car:count for two cars).")
        parts.append((car.lower(), int(count)))
    return tuple(parts)


def _split_seven(state: TrackState, player: str, split: str):
    if not state.rulings.seven_may_split:
        raise IllegalPlay("A 7 may not be split in this game (ruling): it moves one car 7.")
    parts = parse_split(split)
    if len(parts) != 2 or parts[0][0] == parts[1][0]:
        raise BadOption("A split 7 moves two different cars, e.g. split:c1:4,c3:3.")
    if (parts[0][1], parts[1][1]) not in cards.SEVEN_SPLITS:
        raise IllegalPlay("A 7 splits as 6+1, 5+2 or 4+3, and all 7 must be used.")
    events: tuple = ()
    moves: tuple[CarMove, ...] = ()
    for car_id, count in parts:
        car = _own_car(state, player, car_id)
        state, more, move = move_forward(state, car, count, state.rulings.seven_split_into_finish)
        events += more
        moves += (move,)
    return state, events, moves


def joker_source(state: TrackState, car: Car) -> bool:
    """Whether a Joker may swap `car`: "from anywhere including your Home area" (seed), so from revision 4
    any car; revision 3 not from the finish holes, revisions 1-2 not from the lane at all (ruling 8)."""
    if car.where != LANE or state.revision >= JOKER_FROM_FINISH:
        return True
    return not car.finished and state.revision >= SEED_FIDELITY


def _swap(state: TrackState, player: str, car_id: str, target_id: str):
    if not target_id:
        raise BadOption("Name the opponent's car to swap with: target:c1 (for example).")
    if car_id.strip().lower() in ("", "pits"):
        mine = _pit_car(state, player, car_id)
    else:
        mine = _own_car(state, player, car_id)
    if not joker_source(state, mine):
        where = "the pits, the ring or its white dot" if state.revision >= SEED_FIDELITY else "the pits or the ring"
        raise IllegalPlay(f"{car_label(state, mine)} is on {where_label(state, mine)}: a Joker swaps a car "
                          f"from {where} only.")
    wanted = target_id.strip().lower()
    targets = [c for c in state.cars if c.owner != player and c.id == wanted]
    if not targets:
        raise BadOption(f"The opponent has no car called '{target_id}'.")
    target = targets[0]
    if target.where != RING:
        raise IllegalPlay(f"{car_label(state, target)} is on {where_label(state, target)}, off the field: "
                          f"a Joker takes only a car on the ring.")
    if state.rulings.start_spot_safe and target.spot == state.start_of(target.owner):
        raise IllegalPlay(f"{car_label(state, target)} is safe on its start spot (ruling).")
    from_label = where_label(state, mine)
    state = state.with_car(replace(target, where=PITS, spot=0))
    moved = replace(mine, where=RING, spot=target.spot)
    state = state.with_car(moved)
    move = CarMove(player, mine.id, mine.where, mine.spot, RING, target.spot, (target.spot,))
    event = CarsSwapped(car_label(state, mine), from_label, car_label(state, target), f"hole {target.spot}",
                        holes_come(state, target))
    return state, (event,), (move,)


def resolve(state: TrackState, player: str, action: PlayCard, card: str = ""):
    """Work out one card play: (state, events, car moves, how the card was used); IllegalPlay if it can't.

    `card`: the card already in canonical form, when the caller has it.
    """
    card = card or cards.normalize(action.card)
    rank = cards.rank(card)
    move = action.move.strip().lower()
    car_id = action.car.strip().lower()
    if rank == cards.JOKER:
        if move not in ("", "swap", "out"):
            raise BadOption("A Joker swaps (move:swap target:c1) or comes out (move:out).")
        if move == "out" or (not move and not action.target):
            if opponent_on_field(state, player):
                raise IllegalPlay("A Joker comes out only when the opponent has no car on the ring"
                                  + (" to take" if state.revision >= JOKER_OUT_PAST_SAFE else "")
                                  + "; swap instead: move:swap car:… target:….")
            return _come_out(state, player, car_id) + ("come out",)
        return _swap(state, player, car_id, action.target) + ("swap",)
    if action.target:
        raise BadOption("Only a Joker takes a target.")
    if move == "out":
        if not cards.can_come_out(card):
            raise IllegalPlay(f"{card} cannot bring a car out: only an Ace, a J, Q or K, or a Joker can.")
        return _come_out(state, player, car_id) + ("come out",)
    if action.split:
        if rank != "7":
            raise BadOption("Only a 7 can be split.")
        state, events, moves = _split_seven(state, player, action.split)
        counts = "+".join(str(c) for _, c in parse_split(action.split))
        return state, events, moves, f"split {counts}"
    if rank == "8":
        if move not in ("", "8", "back"):
            raise BadOption("An 8 always moves a car back 8.")
        state, events, m = _pick_car(state, player, car_id, lambda car: move_backward(state, car, 8))
        return state, events, (m,), "back 8"
    values = cards.forward_values(card)
    if move:
        if not move.isdigit() or int(move) not in values:
            options = " or ".join(f"move:{v}" for v in values)
            extra = " or move:out" if cards.can_come_out(card) else ""
            raise BadOption(f"{card} moves {options}{extra}.")
        count = int(move)
    elif len(values) == 1:
        count = values[0]
        if cards.can_come_out(card) and car_id and _own_car(state, player, car_id).where == PITS:
            return _come_out(state, player, car_id) + ("come out",)
    else:
        if car_id and _own_car(state, player, car_id).where == PITS:
            return _come_out(state, player, car_id) + ("come out",)
        raise BadOption(f"{card} is worth 1 or 11 (or comes out): add move:1, move:11 or move:out.")
    try:
        moved, events, m = _pick_car(state, player, car_id, lambda car: move_forward(state, car, count))
    except IllegalPlay:
        # no car can go forward: a card that brings a car out, played bare, does that (as its suggestion says)
        if not move and not car_id and cards.can_come_out(card) and any(c.where == PITS
                                                                        for c in state.cars_of(player)):
            return _come_out(state, player, "") + ("come out",)
        raise
    return moved, events, (m,), str(count)


# --- every legal play --------------------------------------------------------------------------

def candidate_plays(state: TrackState, player: str, card: str) -> list[Candidate]:
    """Every way to play `card` worth trying, as (command, action[, reverse split]); `legal_plays` keeps
    the legal ones. A split's parts move in order, so its reverse order is tried too (`_split_plays`)."""
    rank = cards.rank(card)
    mine = state.cars_of(player)
    movable = [c for c in mine if c.where != PITS]
    out: list[Candidate] = []
    base = f"/play card:{card}"
    if rank == cards.JOKER:
        out.append((f"{base} move:out", PlayCard(card, move="out"), "", None))
        sources = [c.id for c in mine if c.where != PITS and joker_source(state, c)]
        if any(c.where == PITS for c in mine):
            sources.append("pits")
        for target in state.cars:
            if target.owner == player or target.where != RING:
                continue
            for source in sources:
                out.append((f"{base} move:swap car:{source} target:{target.id}",
                            PlayCard(card, car=source, move="swap", target=target.id), "", None))
        return out
    if cards.can_come_out(card):
        out.append((f"{base} move:out", PlayCard(card, move="out"), "", None))
    if rank == "8":
        out += [(f"{base} car:{c.id}", PlayCard(card, car=c.id), "", (c, -8)) for c in movable if c.where == RING]
        return out
    values = cards.forward_values(card)
    for car in movable:
        if car.finished and car.spot == state.board.finish_holes:
            continue
        for v in values:
            if len(values) > 1 or rank in ("J", "Q", "K"):
                out.append((f"{base} car:{car.id} move:{v}", PlayCard(card, car=car.id, move=str(v)), "", (car, v)))
            else:
                out.append((f"{base} car:{car.id}", PlayCard(card, car=car.id), "", (car, v)))
    if rank == "7" and state.rulings.seven_may_split and len(movable) >= 2:
        into_lane = state.rulings.seven_split_into_finish
        first_ok = {(c.id, n): _part_fits(state, c, n, into_lane) for c in movable for n in range(1, 7)}
        for i, a in enumerate(movable):
            for b in movable[i + 1:]:
                for first, second in cards.SEVEN_SPLITS:
                    # Parts move in order: try a first, and b first only when that fails (or a can't start).
                    orders = [f"{car.id}:{n},{other.id}:{7 - n}" for car, n, other in
                              ((a, first, b), (b, second, a)) if first_ok[(car.id, n)]]
                    if orders:
                        out.append((f"{base} split:{orders[0]}", PlayCard(card, split=orders[0]),
                                    orders[1] if len(orders) > 1 else "", "split"))
    return out


def _part_fits(state: TrackState, car: Car, count: int, into_lane: bool) -> bool:
    """Could `car` move `count` forward now (a quick test before working a split out in full)?"""
    try:
        check_landing(state, car, forward_path(state, car, count, into_lane))
    except IllegalPlay:
        return False
    return True


def _split_ends(state: TrackState, player: str, split: str) -> tuple[tuple[str, str, int], ...] | None:
    """Where the split 7 leaves its two cars, (car, where, spot) by car, as `_split_seven` decides it,
    without working out events; None if it is illegal. (A bumped opponent cannot matter to the second
    part: it is gone either way.)"""
    into_lane = state.rulings.seven_split_into_finish
    (a_id, a_count), (b_id, b_count) = parse_split(split)
    a, b = _own_car(state, player, a_id), _own_car(state, player, b_id)
    try:
        path = forward_path(state, a, a_count, into_lane)
        check_landing(state, a, path)
        moved = Car(a.owner, a.id, *path[-1])
        second = forward_path(state, b, b_count, into_lane, moved)
        check_landing(state, b, second, moved=moved)
    except IllegalPlay:
        return None
    return tuple(sorted([(a.id, *path[-1]), (b.id, *second[-1])]))


def _split_plays(state: TrackState, player: str, card: str, splits: tuple[str, str], results: bool):
    """(command, action, result) for the legal orders of one split 7, as written and then reversed: the
    first that works, and the other too when it leaves the cars elsewhere (a part that stops short of, or
    laps past, where the other part went). `results=False`: the orders are only checked, the result None."""
    done: object = None
    for split in filter(None, splits):
        action, result = PlayCard(card, split=split), None
        ends: object
        if results:
            try:
                result = resolve(state, player, action, card)
            except IllegalPlay:
                continue
            ends = result[0].cars
        else:
            ends = _split_ends(state, player, split)
            if ends is None:
                continue
        if ends != done:
            yield f"/play card:{card} split:{split}", action, result
            done = ends


def iter_legal_plays(state: TrackState, player: str, include_jokers: bool = True, results: bool = True):
    """(command, action, resolved result) for each legal play from the player's hand, lazily.

    With `results=False` a one-car move is only checked (path and landing), not worked out: the result
    is None. It is the same check `resolve` makes before it moves the car.
    """
    seen = set()
    for card in state.hand(player).cards:
        if card in seen or (not include_jokers and card == cards.JOKER):
            continue
        seen.add(card)
        for command, action, reverse, quick in candidate_plays(state, player, card):
            if quick == "split":
                yield from _split_plays(state, player, card, (action.split, reverse), results)
                continue
            if isinstance(quick, tuple) and not results:
                car, count = quick
                try:
                    path = backward_path(state, car, -count) if count < 0 else forward_path(state, car, count)
                    check_landing(state, car, path)
                except IllegalPlay:
                    continue
                yield command, action, None
                continue
            with contextlib.suppress(IllegalPlay):
                yield command, action, resolve(state, player, action, card)


def legal_plays(state: TrackState, player: str, include_jokers: bool = True) -> list[tuple[str, PlayCard, tuple]]:
    """(command, action, resolved result) for every legal play from the player's hand."""
    return list(iter_legal_plays(state, player, include_jokers))


def has_forced_move(state: TrackState, player: str) -> bool:
    """Seed: "You must play if you have a move" (a Joker does not oblige unless joker_forced)."""
    return next(iter_legal_plays(state, player, state.rulings.joker_forced, results=False), None) is not None

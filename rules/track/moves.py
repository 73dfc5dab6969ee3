"""Moving cars around the ring and into the finish lane: counts, passing, landing and bumping."""

from __future__ import annotations

from rules.track.errors import IllegalPlay
from rules.track.events import CarBumped, CarFinished, CarMoved
from rules.track.state import FINISH_RULINGS_AS_WORDED, LANE, PITS, RING, Car, CarMove, TrackState, evolve


def car_label(state: TrackState, car: Car) -> str:
    """'alice c3': the owner's name and the car number."""
    return f"{state.seated(car.owner).name} {car.id}"


def spot_label(state: TrackState, owner: str, where: str, spot: int) -> str:
    """'hole 12', 'alice's W', 'alice's F3' or 'alice's pits'."""
    if where == RING:
        return f"hole {spot}"
    name = state.seated(owner).name
    if where == PITS:
        return f"{name}'s pits"
    return f"{name}'s W" if spot == 0 else f"{name}'s F{spot}"


def short_label(car: Car) -> str:
    """'hole 12', 'pits', 'W' or 'F3', without the owner."""
    if car.where == RING:
        return f"hole {car.spot}"
    if car.where == PITS:
        return "pits"
    return "W" if car.spot == 0 else f"F{car.spot}"


def where_label(state: TrackState, car: Car) -> str:
    return spot_label(state, car.owner, car.where, car.spot)


def on_field(car: Car) -> bool:
    """On the ring (the seed's "playing field"); the white dot and the finish are off it."""
    return car.where == RING


def distance_to_corner(state: TrackState, car: Car) -> int:
    """Holes from a ring car to its owner's corner, clockwise (0 on the corner)."""
    return (state.corner_of(car.owner) - car.spot) % state.board.ring_holes


def holes_come(state: TrackState, car: Car) -> int:
    """How far a ring car has come from its owner's start spot, in holes."""
    return state.board.ring_holes - 8 - distance_to_corner(state, car)


def forward_path(state: TrackState, car: Car, count: int, into_lane: bool = True,
                 moved: Car | None = None) -> tuple[tuple[str, int], ...]:
    """Every spot a car passes moving `count` forward, the last one its destination; IllegalPlay if it can't.

    `moved`: another car taken to be already at its new place (the first part of a split 7).
    """
    if car.where == PITS:
        name = car_label(state, car)
        raise IllegalPlay(f"{name} is in the pits: it needs a come-out card (A, J, Q, K, or a Joker).")
    last = state.board.finish_holes
    if car.where == LANE:
        if not into_lane and car.spot == 0 and state.revision >= FINISH_RULINGS_AS_WORDED:
            raise _split_kept_out(state, car)
        wanted = car.spot + count
        end = _lane_end(state, car, car.spot + 1, wanted, moved)
        if end is None:
            if wanted > last:
                raise _past_finish(state, car, count)
            end = wanted  # it does not fit: check_landing says which own car is in the way
        return tuple([(LANE, i) for i in range(car.spot + 1, end + 1)])
    ring = tuple([(RING, (car.spot + i) % state.board.ring_holes) for i in range(1, count + 1)])
    to_corner = distance_to_corner(state, car)
    if count <= to_corner:
        return ring
    wanted = count - to_corner - 1  # 0 = W
    end = _lane_end(state, car, 0, wanted, moved)
    if end is None:
        if state.rulings.overshoot_own_corner == "go_round":
            return ring
        if wanted > last:
            raise _past_finish(state, car, count)
        end = wanted
    if not into_lane:
        raise _split_kept_out(state, car)
    return ring[:to_corner] + tuple((LANE, i) for i in range(end + 1))


def _lane_end(state: TrackState, car: Car, first: int, wanted: int, moved: Car | None = None) -> int | None:
    """The lane spot a forward move from lane spot `first` on, counted to `wanted`, ends on; None if the
    lane cannot take the car (go_round then laps it on the ring; otherwise the move is refused).

    From revision 6 the lane's own cars count: a move that would land on or pass one (ruling 3), or run past
    F5, does not fit; without exact count the car then stops in the deepest free spot it can reach. Before,
    only the count decided, and without exact count a car stopped at F5, taken or not.
    """
    rulings, last = state.rulings, state.board.finish_holes
    if state.revision < FINISH_RULINGS_AS_WORDED:
        laps = car.where == RING and rulings.overshoot_own_corner == "go_round"
        if wanted <= last:
            return wanted
        return None if rulings.exact_count_into_finish or laps or first > last else last
    taken = _own_lane_spots(state, car, moved)
    free: list[int] = []
    for spot in range(first, min(wanted, last) + 1):
        if spot not in taken:
            free.append(spot)
        elif not rulings.may_pass_own_cars:
            break
    if free and free[-1] == wanted:
        return wanted
    return free[-1] if free and not rulings.exact_count_into_finish else None


def _own_lane_spots(state: TrackState, car: Car, moved: Car | None = None) -> set[int]:
    """The lane spots (0 = W) held by the owner's other cars, `moved` taken to be at its new place."""
    cars = (moved if moved is not None and (c.owner, c.id) == (moved.owner, moved.id) else c for c in state.cars)
    return {c.spot for c in cars if c.where == LANE and c.owner == car.owner and c.id != car.id}


def _past_finish(state: TrackState, car: Car, count: int) -> IllegalPlay:
    """The refusal of a move that runs past F5 and has nowhere to stop."""
    last = state.board.finish_holes
    if car.where == RING:
        whence, rule = f"{distance_to_corner(state, car)} from its corner", "exact count into the finish; no second lap"
    else:
        whence, rule = f"on {where_label(state, car)}", "exact count into the finish"
    if not state.rulings.exact_count_into_finish:
        rule = "no free hole of its lane is left to stop in"
    return IllegalPlay(f"{car_label(state, car)} is {whence}: {count} would go past F{last} ({rule}).")


def _split_kept_out(state: TrackState, car: Car) -> IllegalPlay:
    return IllegalPlay(f"{car_label(state, car)}: a part of a split 7 may not enter the finish lane (ruling).")


def backward_path(state: TrackState, car: Car, count: int) -> tuple[tuple[str, int], ...]:
    """The holes an 8 passes counter-clockwise: ring only (ruling 7)."""
    if car.where != RING:
        raise IllegalPlay(f"{car_label(state, car)} is on {where_label(state, car)}: an 8 moves back only "
                          f"a car on the ring.")
    n = state.board.ring_holes
    return tuple((RING, (car.spot - i) % n) for i in range(1, count + 1))


def is_safe(state: TrackState, car: Car) -> bool:
    """Whether `car` sits on its own start spot and the ruling start_spot_safe keeps it from being taken."""
    return state.rulings.start_spot_safe and car.where == RING and car.spot == state.start_of(car.owner)


def check_landing(state: TrackState, car: Car, path: tuple[tuple[str, int], ...],
                  moved: Car | None = None) -> Car | None:
    """Refuse passing or landing on one's own car; return the opponent car that will be bumped, if any.

    `moved`: another car taken to be already at its new place (the first part of a split 7).
    """
    occupied = {(c.where, c.spot, c.owner if c.where == LANE else ""): c for c in state.cars if c.where != PITS}
    if moved is not None:
        occupied = {k: c for k, c in occupied.items() if (c.owner, c.id) != (moved.owner, moved.id)}
        occupied[(moved.where, moved.spot, moved.owner if moved.where == LANE else "")] = moved
    for i, (where, spot) in enumerate(path):
        other = occupied.get((where, spot, car.owner if where == LANE else ""))
        if other is None or (other.owner, other.id) == (car.owner, car.id):
            continue
        if other.owner == car.owner:
            if i == len(path) - 1:
                raise IllegalPlay(f"{car_label(state, car)} cannot land on its own car {other.id} at "
                                  f"{spot_label(state, car.owner, where, spot)}.")
            if not state.rulings.may_pass_own_cars:
                raise IllegalPlay(f"{car_label(state, car)} cannot pass its own car {other.id} at "
                                  f"{spot_label(state, car.owner, where, spot)}.")
        elif i == len(path) - 1:
            if is_safe(state, other):
                raise IllegalPlay(f"{car_label(state, other)} is safe on its start spot (ruling).")
            return other
    return None


def relocate(state: TrackState, car: Car, where: str, spot: int, steps: int,
             path: tuple[tuple[str, int], ...]) -> tuple[TrackState, tuple, CarMove]:
    """Put `car` on (where, spot), bumping an opponent there to its pits. Checks must already have passed."""
    events: tuple = ()
    bumped = state.occupant(where, spot, car.owner) if where == RING else None
    if bumped is not None and bumped.owner == car.owner:
        bumped = None
    moved = Car(car.owner, car.id, where, spot)
    home = Car(bumped.owner, bumped.id) if bumped is not None else None
    state = evolve(state, cars=tuple(moved if c is car or (c.owner, c.id) == (car.owner, car.id)
                                      else home if bumped is not None and c is bumped else c
                                      for c in state.cars))
    events += (CarMoved(car_label(state, car), steps, where_label(state, car), where_label(state, moved)),)
    if bumped is not None:
        events += (CarBumped(car_label(state, bumped), where_label(state, moved), car_label(state, car),
                             holes_come(state, bumped)),)
    if moved.finished and not car.finished:
        count = sum(1 for c in state.cars_of(car.owner) if c.finished)
        events += (CarFinished(car_label(state, moved), count),)
    n = state.board.ring_holes
    trail = tuple(s if w == RING else n + s for w, s in path)
    return state, events, CarMove(car.owner, car.id, car.where, car.spot, where, spot, trail)


def move_forward(state: TrackState, car: Car, count: int, into_lane: bool = True):
    path = forward_path(state, car, count, into_lane)
    check_landing(state, car, path)
    where, spot = path[-1]
    return relocate(state, car, where, spot, len(path), path)


def move_backward(state: TrackState, car: Car, count: int):
    path = backward_path(state, car, count)
    check_landing(state, car, path)
    where, spot = path[-1]
    return relocate(state, car, where, spot, -count, path)

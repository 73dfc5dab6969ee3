"""`track`: the card-driven race around a ring of holes (seed 002, a Pegs and Jokers cousin)."""

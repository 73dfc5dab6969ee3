"""Speedway's sizes in pixels (its colours are the shared palette's: images.palette)."""

from __future__ import annotations

HEX = 20                      # hex centre-to-corner, in pixels
MAP_SIDE = 40                 # wall band left and right of the field (row numbers)
MAP_END = 34                  # wall band above and below the field (column letters)
PAD = 20                      # outer padding of caption and panel

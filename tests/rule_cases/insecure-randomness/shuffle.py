"""Randomness for non-security purposes: nothing for the rule to report."""

import random


def shuffled_playlist(tracks):
    order = list(tracks)
    random.shuffle(order)
    return order


def retry_delay(attempt: int) -> float:
    return min(30.0, 2**attempt) * random.uniform(0.5, 1.5)

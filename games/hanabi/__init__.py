"""Hanabi: a batched JAX engine checked against OpenSpiel's `hanabi`."""

"""Stratego agents: scripted bots and learned policies."""

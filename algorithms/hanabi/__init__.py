"""Hanabi blueprints and search: the rule-based bot, exact beliefs, SPARTA."""

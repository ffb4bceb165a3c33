"""Learners on batched environments, and network policies as OpenSpiel
policies."""

"""Game trees as arrays and the solvers that sweep them (see docs/architecture.md)."""

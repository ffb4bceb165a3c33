"""Game trees as arrays and the solvers that sweep them (see DESIGN.md)."""

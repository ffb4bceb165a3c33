"""What the learned puzzle solvers are held against: seeded test sets drawn
as DeepCubeA's (`instances`) and the exact solvers that give their optimal
lengths, each for one puzzle (`sliding_solvers`, `cube_solvers`,
`lights_out_gf2`)."""

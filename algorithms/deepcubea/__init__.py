"""DeepCubeA: deep approximate value iteration (DAVI) and batch weighted A*."""

"""Collision laws in JAX, beside the kernel's Warp ones (`physics.engine`).

`ball_ball.collide` lets the bots predict a cut's throw inside their jitted programs;
`stronge` is the reference of Stronge's compliant cushion model, checked against
pooltool-billiards in `tests/physics/test_stronge.py`, whose constants the kernel shares. The
kernel tests hold the Warp versions to the same results (`tests/physics/test_kernel_reference.py`).
"""

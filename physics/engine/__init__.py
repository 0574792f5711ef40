"""The event loop as one NVIDIA Warp kernel: one thread runs one table's whole shot.

A room per concern, as pooltool splits its engine: `roots` (the first entry of a
polynomial), `motion` (evolve a ball between events), `detect` (when the next contact
of a ball is due), `collide`, `cushion`, `kiss` and `cluster` (resolve a contact), and
`loop` (the kernel that strings them together and keeps the event log).
`physics.kernel` calls the kernel from JAX through `warp.jax_kernel`, on the CPU and on
CUDA, so one source serves both and no batch size compiles it again.
"""

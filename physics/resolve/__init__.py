"""Collision resolvers: what a contact does to the velocities and spins of the balls.

One module per contact pair (`ball_ball`, `cushion`), one function per published model,
each selected by name through `piramida.physics.params.Models`.
"""

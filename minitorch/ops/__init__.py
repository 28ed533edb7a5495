"""Ops: numpy kernels and their gradients, registered by op name in registry.py."""

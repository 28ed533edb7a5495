"""PyTorch scripts written as a PyTorch user writes them (plain `import torch`).

tests/test_pytorch_scripts.py runs each one twice: as written, against PyTorch
(when it is installed), and with only its import lines rewritten to minitorch.
"""

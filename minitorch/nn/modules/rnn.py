"""torch.nn.modules.rnn: PyTorch's path to these classes, for `from torch.nn.modules.rnn import ...`.

They live in nn/rnn.py.
"""
from ..rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase

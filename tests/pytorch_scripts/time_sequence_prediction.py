"""pytorch/examples time_sequence_prediction: two LSTMCells learn sine waves, trained with L-BFGS, in float64.

Source: https://github.com/pytorch/examples (time_sequence_prediction/generate_sine_wave.py and train.py),
BSD-3-Clause licence, Copyright (c) 2017 PyTorch contributors. Shrunk: 12 waves of 40 steps instead of
100 of 1000, 12 hidden units instead of 51, a few L-BFGS steps, 20 future steps, no plots; the data is
generated in memory (generate_sine_wave.py saved it with torch.save) and the model can start from given
weights. The code is the example's: LSTMCell pairs fed input.split(1, dim=1), torch.cat of the outputs,
seq.double(), optim.LBFGS with a closure, a no_grad prediction of the future.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

HIDDEN = 12


def generate_sine_wave(T=20, L=40, N=12, seed=2):
    np.random.seed(seed)
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype('float64')
    return data


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)

    def forward(self, input, future = 0):
        outputs = []
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):# if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def train(initial=None, steps=3, future=20):
    # set random seed to 0
    np.random.seed(0)
    torch.manual_seed(0)
    # load data and make training set
    data = generate_sine_wave()
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    # build the model
    seq = Sequence()
    seq.double()
    if initial is not None:
        seq.load_state_dict({k: torch.from_numpy(v) for k, v in initial.items()})
    criterion = nn.MSELoss()
    # use LBFGS as optimizer since we can load the whole data to train
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    losses, test_losses = [], []
    #begin to train
    for i in range(steps):
        print('STEP: ', i)
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print('loss:', loss.item())
            losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        # begin to predict, no need to track gradient here
        with torch.no_grad():
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print('test loss:', loss.item())
            test_losses.append(loss.item())
            y = pred.detach().numpy()
    return seq, losses, test_losses, y

"""An LSTM language model on a toy sequence, trained with truncated backpropagation through time.

The shape of pytorch/examples word_language_model: nn.Embedding -> nn.LSTM
(batch_first, two layers) -> nn.Linear decoder, init_hidden with
weight.new_zeros, the hidden state carried across chunks and detached
(repackage_hidden), clip_grad_norm_, torch.optim.Adam, and an evaluation pass
under torch.no_grad(). The task: continue a repeating pattern of tokens.
"""
import math

import torch
import torch.nn as nn

pattern = [0, 1, 2, 3, 2, 1, 4, 5, 4, 1]
ntokens = 6


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, batch_first=True)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return torch.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def batchify(length, bsz):
    # every row continues the pattern from its own offset
    rows = [[pattern[(start + t) % len(pattern)] for t in range(length)] for start in range(bsz)]
    return torch.tensor(rows, dtype=torch.long)


def get_batch(source, i, bptt):
    seq_len = min(bptt, source.size(1) - 1 - i)
    data = source[:, i:i + seq_len]
    target = source[:, i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


def evaluate(model, data_source, bptt):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(data_source.size(0))
    criterion = nn.NLLLoss()
    with torch.no_grad():
        for i in range(0, data_source.size(1) - 1, bptt):
            data, targets = get_batch(data_source, i, bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += data.size(1) * criterion(output, targets).item()
    return total_loss / (data_source.size(1) - 1)


def train(initial_state=None, epochs=4, bptt=8, lr=0.01, clip=0.25, seed=1111):
    torch.manual_seed(seed)
    train_data = batchify(41, bsz=4)
    model = RNNModel(ntokens, ninp=8, nhid=16, nlayers=2)
    if initial_state is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in initial_state.items()})
    criterion = nn.NLLLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for epoch in range(1, epochs + 1):
        model.train()
        hidden = model.init_hidden(train_data.size(0))
        for batch, i in enumerate(range(0, train_data.size(1) - 1, bptt)):
            data, targets = get_batch(train_data, i, bptt)
            # Starting each batch, we detach the hidden state from how it was previously produced.
            hidden = tuple(h.detach() for h in hidden)
            optimizer.zero_grad()
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            losses.append(loss.item())
        val_loss = evaluate(model, train_data, bptt)
        print('| end of epoch {:3d} | valid loss {:5.2f} | valid ppl {:8.2f}'.format(
            epoch, val_loss, math.exp(val_loss)))
    return model, losses, val_loss


if __name__ == "__main__":
    train()

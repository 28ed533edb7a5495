"""A character-level name model in the style of Karpathy's makemore lectures.

Bigram counts and sampling with a seeded torch.Generator, the same bigram as
a one-layer network (F.one_hot, manual gradient descent on W.data), then an
MLP over a 3-character context with an embedding table C[Xb], a BatchNorm
written by hand (running statistics updated under torch.no_grad()), minibatch
training with p.data += -lr * p.grad, split losses and sampling. A small list
of names stands in for names.txt.
"""
import random

import torch
import torch.nn.functional as F

words = """emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily
elizabeth mila ella avery sofia camila aria scarlett victoria madison luna grace chloe
penelope layla riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella
natalie zoe leah hazel violet aurora savannah audrey brooklyn bella claire skylar lucy
paisley everly anna caroline nova genesis emilia kennedy samantha maya willow kinsley
naomi aaliyah elena sarah ariana allison gabriella alice madelyn cora ruby eva serenity
autumn adeline hailey gianna valentina isla eliana quinn nevaeh ivy sadie piper lydia
alexa josephine emery julia delilah arianna vivian kaylee sophie brielle madeline
liam noah william james oliver benjamin elijah lucas mason logan alexander ethan jacob
michael daniel henry jackson sebastian aiden matthew samuel david joseph carter owen
wyatt john jack luke jayden dylan grayson levi isaac gabriel julian mateo anthony jaxon
lincoln joshua christopher andrew theodore caleb ryan asher nathan thomas leo isaiah
charles josiah hudson christian hunter connor eli ezra aaron landon adrian jonathan
nolan jeremiah easton elias colton cameron carson robert angel maverick nicholas dominic
jaxson greyson adam ian austin santiago jordan cooper brayden roman evan ezekiel xavier
jose jace jameson leonardo bryson axel everett parker kayden miles sawyer jason""".split()

chars = sorted(list(set(''.join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
vocab_size = len(itos)


def bigram_counts():
    N = torch.zeros((vocab_size, vocab_size), dtype=torch.int32)
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            N[ix1, ix2] += 1
    return N


def bigram_probabilities(N):
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)
    return P


def bigram_nll(P):
    log_likelihood = 0.0
    n = 0
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            prob = P[ix1, ix2]
            logprob = torch.log(prob)
            log_likelihood += logprob
            n += 1
    nll = -log_likelihood
    print(f'{log_likelihood=}')
    print(f'{nll=}')
    print(f'{nll/n}')
    return nll / n


def sample_bigrams(P, count=5, seed=2147483647):
    g = torch.Generator().manual_seed(seed)
    names = []
    for i in range(count):
        out = []
        ix = 0
        while True:
            p = P[ix]
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            out.append(itos[ix])
            if ix == 0:
                break
        names.append(''.join(out))
        print(''.join(out))
    return names


def bigram_dataset():
    xs, ys = [], []
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    return torch.tensor(xs), torch.tensor(ys)


def train_bigram_network(W=None, steps=50):
    xs, ys = bigram_dataset()
    num = xs.nelement()
    print('number of examples: ', num)

    if W is None:
        g = torch.Generator().manual_seed(2147483647)
        W = torch.randn((vocab_size, vocab_size), generator=g, requires_grad=True)

    losses = []
    for k in range(steps):
        # forward pass
        xenc = F.one_hot(xs, num_classes=vocab_size).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
        losses.append(loss.item())

        # backward pass
        W.grad = None
        loss.backward()

        # update
        W.data += -50 * W.grad
    print(loss.item())
    return losses, W


block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + '.':
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


def splits():
    shuffled = list(words)
    random.seed(42)
    random.shuffle(shuffled)
    n1 = int(0.8 * len(shuffled))
    n2 = int(0.9 * len(shuffled))
    return {
        'train': build_dataset(shuffled[:n1]),
        'val': build_dataset(shuffled[n1:n2]),
        'test': build_dataset(shuffled[n2:]),
    }


def init_mlp(n_embd=10, n_hidden=64, seed=2147483647):
    g = torch.Generator().manual_seed(seed)
    C = torch.randn((vocab_size, n_embd), generator=g)
    W1 = torch.randn((n_embd * block_size, n_hidden), generator=g) * (5 / 3) / ((n_embd * block_size) ** 0.5)
    b1 = torch.randn(n_hidden, generator=g) * 0.01
    W2 = torch.randn((n_hidden, vocab_size), generator=g) * 0.01
    b2 = torch.randn(vocab_size, generator=g) * 0
    bngain = torch.ones((1, n_hidden))
    bnbias = torch.zeros((1, n_hidden))
    return [C, W1, b1, W2, b2, bngain, bnbias]


def train_mlp(parameters, Xtr, Ytr, max_steps=200, batch_size=32, batches=None, seed=2147483647):
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    n_hidden = W1.shape[1]
    bnmean_running = torch.zeros((1, n_hidden))
    bnstd_running = torch.ones((1, n_hidden))
    print(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True

    g = torch.Generator().manual_seed(seed)
    lossi = []
    for i in range(max_steps):
        # minibatch construct
        if batches is None:
            ix = torch.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        else:
            ix = torch.as_tensor(batches[i])
        Xb, Yb = Xtr[ix], Ytr[ix]

        # forward pass
        emb = C[Xb]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
        with torch.no_grad():
            bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
            bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
        h = torch.tanh(hpreact)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Yb)

        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()

        # update
        lr = 0.1 if i < max_steps // 2 else 0.01
        for p in parameters:
            p.data += -lr * p.grad

        # track stats
        if i % 50 == 0:
            print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
        lossi.append(loss.log10().item())
    return lossi, bnmean_running, bnstd_running


@torch.no_grad()
def split_loss(parameters, bnmean_running, bnstd_running, x, y):
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    emb = C[x]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1 + b1
    hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, y)
    return loss.item()


def sample_mlp(parameters, bnmean_running, bnstd_running, count=10, seed=2147483647 + 10):
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    g = torch.Generator().manual_seed(seed)
    names = []
    for _ in range(count):
        out = []
        context = [0] * block_size
        while True:
            emb = C[torch.tensor([context])]
            hpreact = emb.view(1, -1) @ W1 + b1
            hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
            h = torch.tanh(hpreact)
            logits = h @ W2 + b2
            probs = F.softmax(logits, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0 or len(out) > 30:
                break
        names.append(''.join(itos[i] for i in out))
    return names


def cmp(s, dt, t):
    ex = torch.all(dt == t.grad).item()
    app = torch.allclose(dt, t.grad)
    maxdiff = (dt - t.grad).abs().max().item()
    print(f'{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}')
    return app, maxdiff


def backprop_by_hand(parameters, Xb, Yb):
    """The MLP's backward pass written out by hand, checked against loss.backward()."""
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    for p in parameters:
        p.requires_grad = True
    n = Xb.shape[0]

    # forward pass, chunked into smaller steps that are possible to backward one at a time
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hprebn = embcat @ W1 + b1
    bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff ** 2
    bnvar = 1 / (n - 1) * (bndiff2).sum(0, keepdim=True)  # Bessel's correction
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes  # subtract max for numerical stability
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum ** -1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()

    for p in parameters:
        p.grad = None
    for t in [logprobs, probs, counts, counts_sum, counts_sum_inv,
              norm_logits, logit_maxes, logits, h, hpreact, bnraw,
              bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani,
              embcat, emb]:
        t.retain_grad()
    loss.backward()

    dlogprobs = torch.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0 / n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-counts_sum ** -2) * dcounts_sum_inv
    dcounts += torch.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogits = dnorm_logits.clone()
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h ** 2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
    dbnraw = bngain * dhpreact
    dbnbias = dhpreact.sum(0, keepdim=True)
    dbndiff = bnvar_inv * dbnraw
    dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
    dbnvar = (-0.5 * (bnvar + 1e-5) ** -1.5) * dbnvar_inv
    dbndiff2 = (1.0 / (n - 1)) * torch.ones_like(bndiff2) * dbnvar
    dbndiff += (2 * bndiff) * dbndiff2
    dhprebn = dbndiff.clone()
    dbnmeani = (-dbndiff).sum(0)
    dhprebn += 1.0 / n * (torch.ones_like(hprebn) * dbnmeani)
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(0)
    demb = dembcat.view(emb.shape)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]

    # cross entropy and batchnorm backward in one go
    loss_fast = F.cross_entropy(logits, Yb)
    print(loss_fast.item(), 'diff:', (loss_fast - loss).item())
    dlogits_fast = F.softmax(logits, 1)
    dlogits_fast[range(n), Yb] -= 1
    dlogits_fast /= n
    dhprebn_fast = bngain * bnvar_inv / n * (n * dhpreact - dhpreact.sum(0)
                                             - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))

    checks = {}
    for name, dt, t in [('logprobs', dlogprobs, logprobs), ('probs', dprobs, probs),
                        ('counts_sum_inv', dcounts_sum_inv, counts_sum_inv),
                        ('counts_sum', dcounts_sum, counts_sum), ('counts', dcounts, counts),
                        ('norm_logits', dnorm_logits, norm_logits), ('logit_maxes', dlogit_maxes, logit_maxes),
                        ('logits', dlogits, logits), ('h', dh, h), ('W2', dW2, W2), ('b2', db2, b2),
                        ('hpreact', dhpreact, hpreact), ('bngain', dbngain, bngain),
                        ('bnbias', dbnbias, bnbias), ('bnraw', dbnraw, bnraw),
                        ('bnvar_inv', dbnvar_inv, bnvar_inv), ('bnvar', dbnvar, bnvar),
                        ('bndiff2', dbndiff2, bndiff2), ('bndiff', dbndiff, bndiff),
                        ('bnmeani', dbnmeani, bnmeani), ('hprebn', dhprebn, hprebn),
                        ('embcat', dembcat, embcat), ('W1', dW1, W1), ('b1', db1, b1),
                        ('emb', demb, emb), ('C', dC, C),
                        ('logits_fast', dlogits_fast, logits), ('hprebn_fast', dhprebn_fast, hprebn)]:
        checks[name] = cmp(name, dt, t)
    grads = {'C': dC, 'W1': dW1, 'b1': db1, 'W2': dW2, 'b2': db2, 'bngain': dbngain, 'bnbias': dbnbias}
    return loss.item(), checks, grads


def main():
    N = bigram_counts()
    P = bigram_probabilities(N)
    bigram_nll(P)
    print(sample_bigrams(P))
    train_bigram_network()
    data = splits()
    Xtr, Ytr = data['train']
    parameters = init_mlp()
    lossi, bnmean, bnstd = train_mlp(parameters, Xtr, Ytr)
    for split in ['train', 'val']:
        print(split, split_loss(parameters, bnmean, bnstd, *data[split]))
    for name in sample_mlp(parameters, bnmean, bnstd):
        print(name)
    ix = torch.randint(0, Xtr.shape[0], (32,), generator=torch.Generator().manual_seed(42))
    backprop_by_hand(init_mlp(), Xtr[ix], Ytr[ix])


if __name__ == "__main__":
    main()

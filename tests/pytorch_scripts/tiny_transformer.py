"""A tiny character-level transformer language model, a few training steps.

Token and learned positional embeddings, two blocks: a hand-written one with
nn.MultiheadAttention and a causal mask from torch.triu(...).bool(), then an
nn.TransformerEncoderLayer (norm_first, GELU) masked by
nn.Transformer.generate_square_subsequent_mask; AdamW with weight decay,
clip_grad_norm_, a cosine schedule, and greedy and sampled generation.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

text = "hello world, hello transformer. the quick brown fox jumps over the lazy dog. " * 4
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
encode = lambda s: [stoi[c] for c in s]
decode = lambda l: ''.join(itos[i] for i in l)
data = torch.tensor(encode(text), dtype=torch.long)

block_size = 16
n_embd = 32
n_head = 4


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, dropout=0.0, batch_first=True)
        self.ln2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.GELU(),
            nn.Linear(4 * n_embd, n_embd),
        )

    def forward(self, x):
        T = x.size(1)
        mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
        h = self.ln1(x)
        attn_out, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + attn_out
        x = x + self.mlp(self.ln2(x))
        return x


class TinyTransformer(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab_size, n_embd)
        self.position_embedding = nn.Embedding(block_size, n_embd)
        self.block = Block(n_embd, n_head)
        self.encoder_layer = nn.TransformerEncoderLayer(
            d_model=n_embd, nhead=n_head, dim_feedforward=64, dropout=0.0,
            activation="gelu", batch_first=True, norm_first=True)
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.token_embedding(idx) + self.position_embedding(pos)
        x = self.block(x)
        mask = nn.Transformer.generate_square_subsequent_mask(T, device=idx.device)
        x = self.encoder_layer(x, src_mask=mask, is_causal=True)
        logits = self.lm_head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, greedy=False, generator=None):
        for _ in range(max_new_tokens):
            idx_cond = idx[:, -block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :]
            probs = F.softmax(logits, dim=-1)
            if greedy:
                idx_next = torch.argmax(probs, dim=-1, keepdim=True)
            else:
                idx_next = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def get_batch(step, batch_size=8):
    # a fixed, seed-free schedule of windows, so that every run sees the same batches
    ix = [(step * 7 + 13 * b) % (len(data) - block_size - 1) for b in range(batch_size)]
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + block_size + 1] for i in ix])
    return x, y


def train(initial_state=None, steps=30, seed=1337):
    torch.manual_seed(seed)
    model = TinyTransformer(len(chars))
    if initial_state is not None:
        model.load_state_dict({k: torch.from_numpy(v) for k, v in initial_state.items()})
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1, betas=(0.9, 0.95))
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    losses, norms = [], []
    model.train()
    for step in range(steps):
        xb, yb = get_batch(step)
        logits, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        norms.append(norm.item())
        if step % 10 == 0:
            print(f"step {step}: loss {loss.item():.4f}, grad norm {norm:.3f}, lr {scheduler.get_last_lr()[0]:.2e}")
    model.eval()
    return model, losses, norms


if __name__ == "__main__":
    model, losses, norms = train()
    context = torch.tensor([encode("hello")], dtype=torch.long)
    print(decode(model.generate(context, 20, greedy=True)[0].tolist()))
    g = torch.Generator().manual_seed(42)
    print(decode(model.generate(context, 20, generator=g)[0].tolist()))

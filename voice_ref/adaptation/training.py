"""Adapt Whisper base's **encoder** to game speech and write it into a copy of the model
(`voice-ref models adapt`; BENCHMARKS.md, sessions 28-30). Needs PyTorch (the CPU build).

Whisper base is rebuilt in PyTorch from the CTranslate2 `model.bin` the recognizer loads
(the variables `whisper_decoder.read_ct2_weights` reads): the encoder as CTranslate2 runs
it (two convolutions with erf GELU, sinusoidal positions, six pre-norm layers, a final
norm) and the decoder as `whisper_decoder.WhisperDecoder` runs it. Only the encoder
trains; the decoder stays Whisper's own, so the text prior the recognizer divides by
(the decoder on silence) keeps its meaning. Each clip is encoded the way the recognizer
encodes an utterance (`log_mel.encoder_input`: the audio, then 0.3 s of zeros; a batch's
shorter clips get more zeros), and the loss is the cross-entropy of the clip's text as
the phrase search scores it, after Whisper's start tokens (`<|startoftranscript|><|es|>
<|transcribe|><|notimestamps|>`).

`TrainSettings.l2sp` W adds W x the mean squared distance of the encoder's weights from
Whisper's (L2-SP): a pull toward what the base model already hears well (real voices)
while it learns the synthetic ones.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812
from torch import nn

from voice_ref.voice.asr.log_mel import encoder_input
from voice_ref.voice.asr.whisper_decoder import LN_EPS, read_ct2_weights
from voice_ref.voice.asr.whisper_tokens import WhisperTokens

MODEL_FILES = ("config.json", "tokenizer.json", "vocabulary.json")


class _Linear(nn.Module):
    """A weight and a bias under their CTranslate2 scope (a convolution's weight too)."""

    def __init__(self, w: dict[str, np.ndarray], scope: str) -> None:
        super().__init__()
        self.scope = scope
        self.weight = _param(w[scope + "/weight"])
        self.bias = _param(w[scope + "/bias"])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight, self.bias)


class _Norm(nn.Module):
    def __init__(self, w: dict[str, np.ndarray], scope: str) -> None:
        super().__init__()
        self.scope = scope
        self.gamma = _param(w[scope + "/gamma"])
        self.beta = _param(w[scope + "/beta"])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, x.shape[-1:], self.gamma, self.beta, LN_EPS)


def _param(array: np.ndarray) -> nn.Parameter:
    return nn.Parameter(torch.tensor(np.asarray(array, np.float32)))


def _layers(w: dict[str, np.ndarray], side: str) -> int:
    count = 0
    while f"{side}/layer_{count}/ffn/linear_0/bias" in w:
        count += 1
    return count


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, heads: int,
            causal: bool = False) -> torch.Tensor:
    """Multi-head attention of [batch, time, d] queries, keys and values."""
    def split(x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        return x.view(b, t, heads, d // heads).transpose(1, 2)

    out = F.scaled_dot_product_attention(split(q), split(k), split(v), is_causal=causal)
    b, h, t, hd = out.shape
    return out.transpose(1, 2).reshape(b, t, h * hd)


class _SelfAttention(nn.Module):
    def __init__(self, w: dict[str, np.ndarray], scope: str, heads: int, causal: bool) -> None:
        super().__init__()
        self.heads, self.causal = heads, causal
        self.norm = _Norm(w, scope + "/layer_norm")
        self.qkv = _Linear(w, scope + "/linear_0")
        self.out = _Linear(w, scope + "/linear_1")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        return x + self.out(_attend(q, k, v, self.heads, self.causal))


class _CrossAttention(nn.Module):
    def __init__(self, w: dict[str, np.ndarray], scope: str, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm = _Norm(w, scope + "/layer_norm")
        self.q = _Linear(w, scope + "/linear_0")
        self.kv = _Linear(w, scope + "/linear_1")
        self.out = _Linear(w, scope + "/linear_2")

    def forward(self, x: torch.Tensor, encoded: torch.Tensor) -> torch.Tensor:
        k, v = self.kv(encoded).chunk(2, dim=-1)
        return x + self.out(_attend(self.q(self.norm(x)), k, v, self.heads))


class _FeedForward(nn.Module):
    def __init__(self, w: dict[str, np.ndarray], scope: str) -> None:
        super().__init__()
        self.norm = _Norm(w, scope + "/layer_norm")
        self.inner = _Linear(w, scope + "/linear_0")
        self.outer = _Linear(w, scope + "/linear_1")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.outer(F.gelu(self.inner(self.norm(x))))


class Encoder(nn.Module):
    """Whisper's encoder with the weights of a CTranslate2 model."""

    def __init__(self, w: dict[str, np.ndarray]) -> None:
        super().__init__()
        heads = int(np.asarray(w.get("encoder/num_heads", 8)))
        self.conv1 = _Linear(w, "encoder/conv1")  # weight [out, in, width]
        self.conv2 = _Linear(w, "encoder/conv2")
        self.register_buffer(
            "positions", torch.tensor(np.asarray(w["encoder/position_encodings/encodings"],
                                                 np.float32)))
        self.layers = nn.ModuleList(
            nn.Sequential(_SelfAttention(w, f"encoder/layer_{i}/self_attention", heads, False),
                          _FeedForward(w, f"encoder/layer_{i}/ffn"))
            for i in range(_layers(w, "encoder")))
        self.norm = _Norm(w, "encoder/layer_norm")

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        x = F.gelu(F.conv1d(features, self.conv1.weight, self.conv1.bias, padding=1))
        x = F.gelu(F.conv1d(x, self.conv2.weight, self.conv2.bias, stride=2, padding=1))
        x = x.transpose(1, 2)
        x = x + self.positions[: x.shape[1]]
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)

    def ct2_weights(self) -> dict[str, np.ndarray]:
        """The weights under their CTranslate2 names, float32."""
        return {f"{m.scope}/{name}": p.detach().float().numpy()
                for m in self.modules() if isinstance(m, _Linear | _Norm)
                for name, p in m.named_parameters()}


class _DecoderLayer(nn.Module):
    def __init__(self, w: dict[str, np.ndarray], scope: str, heads: int) -> None:
        super().__init__()
        self.attn = _SelfAttention(w, scope + "/self_attention", heads, causal=True)
        self.cross = _CrossAttention(w, scope + "/attention", heads)
        self.ffn = _FeedForward(w, scope + "/ffn")

    def forward(self, x: torch.Tensor, encoded: torch.Tensor) -> torch.Tensor:
        return self.ffn(self.cross(self.attn(x), encoded))


class Decoder(nn.Module):
    """Whisper's decoder as `WhisperDecoder` runs it (frozen here): logits of each next
    token after each fed token."""

    def __init__(self, w: dict[str, np.ndarray]) -> None:
        super().__init__()
        heads = int(np.asarray(w.get("decoder/num_heads", 8)))
        self.embeddings = _param(w["decoder/embeddings/weight"])
        self.positions = _param(w["decoder/position_encodings/encodings"])
        self.layers = nn.ModuleList(_DecoderLayer(w, f"decoder/layer_{i}", heads)
                                    for i in range(_layers(w, "decoder")))
        self.norm = _Norm(w, "decoder/layer_norm")
        self.requires_grad_(False)

    def forward(self, tokens: torch.Tensor, encoded: torch.Tensor) -> torch.Tensor:
        x = self.embeddings[tokens] + self.positions[: tokens.shape[1]]
        for layer in self.layers:
            x = layer(x, encoded)
        return self.norm(x) @ self.embeddings.T


def load(model_dir: Path) -> tuple[Encoder, Decoder]:
    w = read_ct2_weights(model_dir / "model.bin")
    return Encoder(w), Decoder(w)


def features(clips: list[np.ndarray]) -> torch.Tensor:
    """[batch, 80, frames]: each clip as the recognizer encodes an utterance, the shorter
    ones with more trailing zeros (silence) to the batch's length."""
    longest = max(len(c) for c in clips)
    rows = [encoder_input(np.pad(c, (0, longest - len(c)))) for c in clips]
    return torch.from_numpy(np.concatenate(rows))


def token_batch(tok: WhisperTokens, texts: list[str]) -> tuple[torch.Tensor, torch.Tensor]:
    """Decoder input (start tokens + text) and targets (-100 where no loss is taken)."""
    start = [*tok.sot_sequence, tok.no_timestamps]
    seqs = [[*tok.encode(" " + t), tok.eot] for t in texts]
    n = len(start) + max(len(s) for s in seqs) - 1
    inputs = torch.full((len(texts), n), tok.eot, dtype=torch.long)
    targets = torch.full((len(texts), n), -100, dtype=torch.long)
    for i, s in enumerate(seqs):
        row = [*start, *s[:-1]]
        inputs[i, : len(row)] = torch.tensor(row)
        targets[i, len(start) - 1 : len(start) - 1 + len(s)] = torch.tensor(s)
    return inputs, targets


def batches(lengths: list[int], size: int, rng: random.Random) -> list[list[int]]:
    """Clips of similar length together (less padding), batches in random order."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    out = [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(out)
    return out


def write_encoder(model_dir: Path, out_dir: Path, weights: dict[str, np.ndarray]) -> None:
    """A copy of the model with the encoder's weights replaced (float16, as stored)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (*MODEL_FILES, "model.bin"):
        if (model_dir / name).is_file():
            shutil.copyfile(model_dir / name, out_dir / name)
    stored = read_ct2_weights(out_dir / "model.bin", "encoder/", writable=True)
    for name, array in weights.items():
        if name not in stored or stored[name].shape != array.shape:
            raise ValueError(f"{name}: not an encoder variable of this model")
        stored[name][...] = array.astype(stored[name].dtype)


@dataclass(frozen=True, slots=True)
class TrainSettings:
    """One pass over the clips at a small learning rate (session 29's `ft5`)."""

    epochs: float = 1.0
    lr: float = 2e-5
    batch: int = 16
    l2sp: float = 0.0
    seed: int = 1
    threads: int = 2


def heap_trimmer() -> Callable[[], None]:
    """glibc's `malloc_trim(0)`, which hands the heap's free pages back to the system;
    elsewhere a no-op. Every batch has its own shapes, and glibc keeps what each freed:
    a default run grew to 6.0 GB without it (BENCHMARKS.md, session 31)."""
    try:
        malloc_trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return lambda: None

    def trim() -> None:
        malloc_trim(0)

    return trim


KERNEL_CACHE_CAPACITY = 64
"""Kernels kept by each of PyTorch's two CPU kernel caches (oneDNN's and ideep's, both
1,024 by default). In bfloat16 every new batch shape adds kernels: with the default sizes
the memory in use grew ~20 MB a step and a default run peaked at 3.70 GB, with 64 at 3.02
GB, the same weights and no slower (BENCHMARKS.md, session 35)."""


def bound_kernel_caches(capacity: int = KERNEL_CACHE_CAPACITY) -> None:
    """Cap PyTorch's oneDNN and ideep kernel caches unless the user already set them. Both
    read their variable when first used, so this works after `import torch` as long as no
    bfloat16 matrix product ran yet. Which kernel runs does not change: same weights."""
    for variable in ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "LRU_CACHE_CAPACITY"):
        os.environ.setdefault(variable, str(capacity))


def train(data: Path, model: Path, out: Path, settings: TrainSettings,
          progress: Callable[[str], None] = print) -> None:
    """Adapt `model`'s encoder on the clips in `data` (`clips.build_clips`) into `out`."""
    bound_kernel_caches()
    torch.manual_seed(settings.seed)
    torch.set_num_threads(settings.threads)
    rng = random.Random(settings.seed)
    audio = np.load(data / "audio.npy", mmap_mode="r")
    rows = [json.loads(x) for x in (data / "clips.jsonl").read_text("utf-8").splitlines()]
    tok = WhisperTokens(model / "tokenizer.json")
    encoder, decoder = load(model)
    start = {n: p.detach().clone() for n, p in encoder.named_parameters()}
    rounds = math.ceil(settings.epochs)
    plan = [b for _ in range(rounds)
            for b in batches([r["length"] for r in rows], settings.batch, rng)]
    plan = plan[: int(len(plan) / rounds * settings.epochs)]
    opt = torch.optim.AdamW(encoder.parameters(), lr=settings.lr, weight_decay=0.0)
    warm = max(1, len(plan) // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(
        (s + 1) / warm, 0.5 * (1 + math.cos(math.pi * min(1.0, s / len(plan))))))
    began, shown = time.monotonic(), 0.0
    trim = heap_trimmer()
    for step, batch in enumerate(plan):
        trim()
        clips = [audio[rows[i]["start"] : rows[i]["start"] + rows[i]["length"]]
                 .astype(np.float32) / 32767 for i in batch]
        inputs, targets = token_batch(tok, [rows[i]["text"] for i in batch])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = decoder(inputs, encoder(features(clips)))
        loss = F.cross_entropy(logits.float().transpose(1, 2), targets)
        total = loss + settings.l2sp * _drift(encoder, start) if settings.l2sp else loss
        opt.zero_grad()
        total.backward()
        opt.step()
        sched.step()
        shown = 0.98 * shown + 0.02 * loss.item() if step else loss.item()  # smoothed
        if step % 25 == 0 or step == len(plan) - 1:
            with torch.no_grad():
                drift = _drift(encoder, start).item()
            progress(f"step {step + 1}/{len(plan)} loss {shown:.3f} drift {drift:.4f} "
                     f"{time.monotonic() - began:.0f} s")
    write_encoder(model, out, encoder.ct2_weights())


def _drift(encoder: Encoder, start: dict[str, torch.Tensor]) -> torch.Tensor:
    """The squared distance of the encoder's weights from where they started (L2-SP)."""
    return sum((((p - start[n]) ** 2).sum() for n, p in encoder.named_parameters()),
               torch.zeros(()))

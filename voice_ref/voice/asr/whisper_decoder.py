"""Whisper's text decoder in numpy, with a KV cache per token prefix.

Why not CTranslate2's `generate`: scoring a forced prefix there recomputes the
whole prefix and the cross-attention keys/values for every batch row (~8 ms a
row). The closed-vocabulary search scores thousands of prefixes that share
almost everything, so here:

- the cross-attention keys/values are computed once per encoded utterance
  (`CrossKV`);
- every scored prefix keeps its self-attention keys/values (`DecoderState`), so
  scoring a child prefix costs one decoder step on one new token, batched over
  many children.

The weights are Whisper base's own, read from the CTranslate2 `model.bin` the
recognizer already loads (float16 on disk, float32 here). The encoder stays in
CTranslate2. The architecture is CTranslate2's `TransformerDecoder` as its Whisper
spec sets it: learned position embeddings, no embedding scaling, pre-norm layers
(self-attention, cross-attention, feed-forward with erf GELU), a final layer norm
and the output projection tied to the token embeddings.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

LN_EPS = 1e-5
# CTranslate2's dtype ids (specs/model_spec.py, _dtype_to_type_id), bfloat16 excepted.
_DTYPES: dict[int, np.dtype] = {
    0: np.dtype(np.float32),
    1: np.dtype(np.int8),
    2: np.dtype(np.int16),
    3: np.dtype(np.int32),
    4: np.dtype(np.float16),
}
_SUPPORTED_VERSIONS = (5, 6)


class WeightsError(ValueError):
    """The model file is not a CTranslate2 Whisper model this decoder can read."""


def read_ct2_weights(path: Path | str, prefix: str = "") -> dict[str, np.ndarray]:
    """The variables of a CTranslate2 `model.bin` whose names start with `prefix`, by
    name (aliases resolved). Others are skipped unread (the encoder stays in CTranslate2).

    Format (CTranslate2 python/ctranslate2/specs/model_spec.py, `_serialize`):
    uint32 version, string spec name, uint32 revision, uint32 count, then per
    variable: string name, uint8 rank, rank x uint32 shape, uint8 dtype id, uint32
    byte count, the bytes; then uint32 alias count and (alias, target) strings.
    Strings are uint16 length (with the final NUL) + UTF-8 bytes + NUL.
    """
    path = Path(path)
    try:
        f = path.open("rb")
    except OSError as err:
        raise WeightsError(f"Cannot open the Whisper weights {path}: {err.strerror}.") from err
    with f:
        try:
            return _read_variables(f, path, prefix)
        except (struct.error, UnicodeDecodeError, ValueError) as err:
            if isinstance(err, WeightsError):
                raise
            raise WeightsError(
                f"{path} is not a complete CTranslate2 model file ({err}). "
                "Reinstall it: voice-ref models install whisper-base"
            ) from err


def _read_variables(f: BinaryIO, path: Path, prefix: str) -> dict[str, np.ndarray]:
    def number(fmt: str) -> int:
        size = struct.calcsize(fmt)
        data = f.read(size)
        if len(data) != size:
            raise ValueError("the file ends early")
        return struct.unpack("<" + fmt, data)[0]

    def string() -> str:
        n = number("H")
        data = f.read(n)
        if len(data) != n:
            raise ValueError("the file ends early")
        return data[:-1].decode("utf-8")

    version = number("I")
    if version not in _SUPPORTED_VERSIONS:
        raise WeightsError(
            f"{path} has CTranslate2 binary version {version}; this decoder reads "
            f"versions {', '.join(map(str, _SUPPORTED_VERSIONS))}."
        )
    spec = string()
    if spec != "WhisperSpec":
        raise WeightsError(f"{path} holds a {spec!r} model, not Whisper.")
    number("I")  # revision
    out: dict[str, np.ndarray] = {}
    for _ in range(number("I")):
        name = string()
        shape = tuple(number("I") for _ in range(number("B")))
        dtype_id = number("B")
        nbytes = number("I")
        if not name.startswith(prefix):
            f.seek(nbytes, 1)
            continue
        data = f.read(nbytes)
        if len(data) != nbytes:
            raise ValueError(f"variable {name} is cut short")
        if dtype_id not in _DTYPES:
            if name.startswith("decoder/layer") or name.startswith("decoder/embeddings"):
                raise WeightsError(
                    f"{path}: weight {name} has CTranslate2 dtype id {dtype_id}, which "
                    "this decoder does not read (float32, float16 and integers only)."
                )
            continue
        out[name] = np.frombuffer(data, dtype=_DTYPES[dtype_id]).reshape(shape)
    for _ in range(number("I")):
        alias, target = string(), string()
        if target in out:
            out[alias] = out[target]
    return out


@dataclass(frozen=True, slots=True)
class _Layer:
    self_ln: tuple[np.ndarray, np.ndarray]
    self_qkv: tuple[np.ndarray, np.ndarray]  # weight transposed: [d, 3d]
    self_out: tuple[np.ndarray, np.ndarray]
    cross_ln: tuple[np.ndarray, np.ndarray]
    cross_q: tuple[np.ndarray, np.ndarray]
    cross_kv: tuple[np.ndarray, np.ndarray]
    cross_out: tuple[np.ndarray, np.ndarray]
    ffn_ln: tuple[np.ndarray, np.ndarray]
    ffn_in: tuple[np.ndarray, np.ndarray]
    ffn_out: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True, slots=True)
class CrossKV:
    """Cross-attention keys and values of one encoded utterance, per layer:
    [layers, 2, heads, frames, head_dim]. Computed once, shared by every prefix."""

    kv: np.ndarray


@dataclass(frozen=True, slots=True)
class DecoderState:
    """The self-attention keys/values of one token prefix: [layers, 2, heads, length, head_dim].

    Immutable: a child prefix gets a new state with one more position, so any
    prefix of the search can be extended again later.
    """

    kv: np.ndarray

    @property
    def length(self) -> int:
        return self.kv.shape[3]


class WhisperDecoder:
    """The decoder of a CTranslate2 Whisper model, run in float32 numpy."""

    def __init__(self, model_dir: Path | str) -> None:
        path = Path(model_dir) / "model.bin"
        w = read_ct2_weights(path, "decoder/")

        def get(name: str) -> np.ndarray:
            try:
                return np.ascontiguousarray(w[name], dtype=np.float32)
            except KeyError:
                raise WeightsError(
                    f"{path} has no variable {name}: not a Whisper decoder this code knows."
                ) from None

        def linear(scope: str) -> tuple[np.ndarray, np.ndarray]:
            return np.ascontiguousarray(get(scope + "/weight").T), get(scope + "/bias")

        def norm(scope: str) -> tuple[np.ndarray, np.ndarray]:
            return get(scope + "/gamma"), get(scope + "/beta")

        self.heads = int(np.asarray(w.get("decoder/num_heads", 8)))
        self.embeddings = get("decoder/embeddings/weight")  # [vocab, d], also the output
        self.positions = get("decoder/position_encodings/encodings")  # [max_len, d]
        self.final_ln = norm("decoder/layer_norm")
        self.layers: list[_Layer] = []
        i = 0
        while f"decoder/layer_{i}/ffn/linear_0/weight" in w:
            s = f"decoder/layer_{i}"
            self.layers.append(
                _Layer(
                    norm(s + "/self_attention/layer_norm"),
                    linear(s + "/self_attention/linear_0"),
                    linear(s + "/self_attention/linear_1"),
                    norm(s + "/attention/layer_norm"),
                    linear(s + "/attention/linear_0"),
                    linear(s + "/attention/linear_1"),
                    linear(s + "/attention/linear_2"),
                    norm(s + "/ffn/layer_norm"),
                    linear(s + "/ffn/linear_0"),
                    linear(s + "/ffn/linear_1"),
                )
            )
            i += 1
        if not self.layers:
            raise WeightsError(f"{path} has no decoder layers.")
        if w.get("decoder/scale_embeddings") is not None and int(
            np.asarray(w["decoder/scale_embeddings"])
        ):
            raise WeightsError(f"{path}: scaled embeddings are not Whisper's decoder.")
        self.dim = self.embeddings.shape[1]
        self.head_dim = self.dim // self.heads
        self.vocab = self.embeddings.shape[0]
        self.max_length = self.positions.shape[0]

    # --- per utterance ---------------------------------------------------------------------

    def cross(self, encoded: np.ndarray) -> CrossKV:
        """Keys/values of the encoder output [1, frames, d] (or [frames, d]) for every layer."""
        enc = np.asarray(encoded, dtype=np.float32).reshape(-1, self.dim)
        frames = enc.shape[0]
        out = np.empty((len(self.layers), 2, self.heads, frames, self.head_dim), np.float32)
        for i, layer in enumerate(self.layers):
            kv = enc @ layer.cross_kv[0] + layer.cross_kv[1]  # [frames, 2d]
            out[i] = kv.reshape(frames, 2, self.heads, self.head_dim).transpose(1, 2, 0, 3)
        return CrossKV(out)

    def empty_state(self) -> DecoderState:
        shape = (len(self.layers), 2, self.heads, 0, self.head_dim)
        return DecoderState(np.zeros(shape, np.float32))

    # --- one step over a batch of prefixes -------------------------------------------------

    def step(
        self, cross: CrossKV, states: list[DecoderState], tokens: list[list[int]]
    ) -> tuple[list[DecoderState], np.ndarray]:
        """Feed the same number n of tokens to each prefix, in one pass over the weights.

        Returns the extended states and log P(next token) after each fed token,
        [batch, n, vocab] float32. Prefixes may have different lengths (shorter ones
        are padded and masked). One pass for several tokens matters: each step
        streams all the weights (~200 MB), which costs more than the arithmetic of a
        few rows, so a word of three tokens is fed at once, not in three steps.
        """
        b = len(states)
        n = len(tokens[0]) if tokens else 0
        if b == 0 or n == 0 or any(len(t) != n for t in tokens):
            raise ValueError("step needs one or more prefixes, each fed the same number of tokens")
        lengths = np.array([s.length for s in states])
        total = int(lengths.max()) + n
        if total > self.max_length:
            raise ValueError(f"Whisper's decoder takes at most {self.max_length} tokens")
        layers, heads, hd, dim = len(self.layers), self.heads, self.head_dim, self.dim
        # Past keys/values, padded: [layers, 2, batch, heads, total, hd]; row i's new
        # positions are lengths[i] .. lengths[i] + n - 1.
        past = np.zeros((layers, 2, b, heads, total, hd), np.float32)
        for i, s in enumerate(states):
            past[:, :, i, :, : s.length] = s.kv
        new_pos = lengths[:, None] + np.arange(n)[None, :]  # [batch, n]
        # Query j of row i sees its past and its own new positions up to j.
        pos = np.arange(total)[None, None, :]
        visible = (pos < lengths[:, None, None]) | (
            (pos >= lengths[:, None, None]) & (pos <= new_pos[:, :, None])
        )
        mask = np.where(visible, 0.0, -np.inf).astype(np.float32)[:, None]  # [b, 1, n, total]
        rows = np.arange(b)[:, None]
        x = (self.embeddings[np.asarray(tokens)] + self.positions[new_pos]).reshape(b * n, dim)
        scale = np.float32(1.0 / np.sqrt(hd))
        for i, layer in enumerate(self.layers):
            h = _layer_norm(x, layer.self_ln)
            qkv = (h @ layer.self_qkv[0] + layer.self_qkv[1]).reshape(b, n, 3, heads, hd)
            past[i, 0, rows, :, new_pos] = qkv[:, :, 1]
            past[i, 1, rows, :, new_pos] = qkv[:, :, 2]
            q = qkv[:, :, 0].transpose(0, 2, 1, 3) * scale  # [b, heads, n, hd]
            att = q @ past[i, 0].transpose(0, 1, 3, 2) + mask  # [b, heads, n, total]
            ctx = (_softmax(att) @ past[i, 1]).transpose(0, 2, 1, 3)  # [b, n, heads, hd]
            x = x + ctx.reshape(b * n, dim) @ layer.self_out[0] + layer.self_out[1]

            h = _layer_norm(x, layer.cross_ln)
            q = (h @ layer.cross_q[0] + layer.cross_q[1]).reshape(b * n, heads, hd) * scale
            k, v = cross.kv[i, 0], cross.kv[i, 1]  # [heads, frames, hd]
            att = q.transpose(1, 0, 2) @ k.transpose(0, 2, 1)  # [heads, b * n, frames]
            ctx = (_softmax(att) @ v).transpose(1, 0, 2)  # [b * n, heads, hd]
            x = x + ctx.reshape(b * n, dim) @ layer.cross_out[0] + layer.cross_out[1]

            h = _layer_norm(x, layer.ffn_ln)
            x = x + _gelu(h @ layer.ffn_in[0] + layer.ffn_in[1]) @ layer.ffn_out[0]
            x = x + layer.ffn_out[1]
        logits = _layer_norm(x, self.final_ln) @ self.embeddings.T
        new = [
            DecoderState(np.ascontiguousarray(past[:, :, i, :, : lengths[i] + n]))
            for i in range(b)
        ]
        return new, _log_softmax(logits).reshape(b, n, self.vocab)

    def run(
        self, cross: CrossKV, state: DecoderState, tokens: list[int]
    ) -> tuple[DecoderState, np.ndarray]:
        """Feed several tokens to one prefix: the state and log P rows after each token."""
        (state,), rows = self.step(cross, [state], [list(tokens)])
        return state, rows[0]


def _layer_norm(x: np.ndarray, params: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + LN_EPS) * params[0] + params[1]


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax(x: np.ndarray) -> np.ndarray:
    """In place: the [positions, vocab] logits are the largest arrays of a step (13 MB
    for 64 positions); copies of them showed in the peak RSS."""
    x -= x.max(axis=-1, keepdims=True)
    x -= np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return x


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf, and Whisper's
    GELU is the exact (erf) one, not the tanh approximation."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * np.float32(1 / np.sqrt(2))))

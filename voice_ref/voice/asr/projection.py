"""log sum exp over Whisper's whole vocabulary: the normalizer of every scored token.

Why its own module: this one product — hidden states [m, 512] times the 51,865 token
embeddings — was ~42% of an answer's compute (BENCHMARKS.md, session 6). In float32 numpy
every call streams the 106 MB embedding matrix. Here the matrix is held in int8 (one scale
per token) and multiplied by onnxruntime's `DynamicQuantizeMatMul` (int8 kernels: a quarter
of the bytes, VNNI / AMX where the CPU has them).

Int8 logits are off by ~0.24 nats (std): the decoder's hidden states have a few huge
dimensions, so the activations' 8-bit steps are coarse. The normalizer is dominated by the
largest logits, so those (every logit within `EXACT_MARGIN` nats of its row's best) are
recomputed exactly in float32 and only the long tail enters with its int8 value, whose
errors mostly average out. The result is within a few hundredths of a nat of the float32
normalizer (BENCHMARKS.md, "The vocabulary normalizer in int8").

A row's value never depends on the rows computed with it: `DynamicQuantizeMatMul` picks
one 8-bit grid for the whole input (its min and max), so each row is first scaled to a
largest magnitude of 1 and two constant columns (-1 and +1, against zero weights) pin the
grid; the exact logits are capped per row. The text prior prepared in batches of 64 and
the same prefix scored alone in an answer then agree exactly.

The weights use 7 bits (-63..63), not 8. Without VNNI, onnxruntime's x86 kernel multiplies
uint8 activations by int8 weights with AVX2's `vpmaddubsw`, which adds two products into a
*saturating* int16: 2 x 255 x 127 overflows it, 2 x 255 x 63 does not. With 8-bit weights an
AVX2-only CPU (an AMD EPYC here, many laptops) was off by up to 21 nats on the tests' dense
synthetic rows, while the VNNI CPU of earlier sessions stayed within the tests' bounds. The
decoder's real hidden states sit near the grid's middle and did not overflow (813 rows of
six DEV clips: mean error 0.024 nats with either width, BENCHMARKS.md session 13), but
nothing guaranteed it; with 7 bits every CPU computes the same integers. Other kernels
(other CPUs, other onnxruntime releases) are not taken on trust: `max_error` measures the
normalizer against float32 on rows built to provoke such overflows, and the decoder uses
float32 when it is off (`whisper_decoder.WhisperDecoder`).
"""

from __future__ import annotations

import numpy as np

WEIGHT_LEVELS = 63  # largest int8 weight: 7 bits, so AVX2's int16 pair sums never saturate
EXACT_MARGIN = 3.0  # nats below a row's best int8 logit: recomputed in float32
EXACT_MAX = 64  # at most this many exact logits a row (a flat row has hundreds)
PROJECTION_ROWS = 64  # rows at once: the [rows, vocab] logits are 13 MB for 64 rows
TABLE_SLICE = 4096  # tokens converted to float32 at once (never the whole 106 MB table)
CHECK_TOKENS = 12  # tokens whose own embedding is a probe row of `max_error` (peaked rows)


class VocabularyNormalizer:
    """`normalizer(hidden)` = log sum_t exp(hidden @ embeddings[t]) for each row.

    `embeddings` [vocab, d] (float16 or float32) stay the caller's: the exact logits read
    rows of it. `threads`: onnxruntime's intra-op threads (the recognizer's `asr.threads`).
    """

    def __init__(self, embeddings: np.ndarray, threads: int = 2) -> None:
        import onnxruntime

        self.embeddings = embeddings
        scales = np.abs(embeddings).max(axis=1).astype(np.float32) / WEIGHT_LEVELS
        scales[scales == 0] = 1.0
        # [d + 2, vocab], as the graph reads it; the last two rows (zero) meet the grid's
        # pinning columns (module docstring).
        weight = np.zeros((embeddings.shape[1] + 2, embeddings.shape[0]), np.int8)
        for lo in range(0, len(embeddings), TABLE_SLICE):
            hi = lo + TABLE_SLICE
            part = embeddings[lo:hi].astype(np.float32) / scales[lo:hi, None]
            weight[:-2, lo:hi] = np.clip(np.rint(part), -WEIGHT_LEVELS, WEIGHT_LEVELS).T
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # No busy-waiting between calls: BLAS and CTranslate2 need the same cores next.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # The weights reach onnxruntime as arrays it reads in place, not inside the model's
        # bytes: serialized, they were two more 26 MB copies at load (the peak RSS).
        self._weights = [onnxruntime.OrtValue.ortvalue_from_numpy(a) for a in (weight, scales)]
        options.add_external_initializers(["weight", "scales"], self._weights)
        self._session = onnxruntime.InferenceSession(
            _model(weight.shape), options, providers=["CPUExecutionProvider"]
        )

    def __call__(self, hidden: np.ndarray) -> np.ndarray:
        hidden = np.ascontiguousarray(hidden, dtype=np.float32)
        out = np.empty(len(hidden), np.float32)
        for lo in range(0, len(hidden), PROJECTION_ROWS):
            out[lo : lo + PROJECTION_ROWS] = self._rows(hidden[lo : lo + PROJECTION_ROWS])
        return out

    def max_error(self) -> float:
        """Largest |int8 - float32| normalizer, in nats, over probe rows: dense rows at the
        top of the 8-bit grid of either sign (every pair of products large: what overflows
        a saturating kernel) and rows pointing at single tokens (what the search scores)."""
        d = self.embeddings.shape[1]
        step = max(1, len(self.embeddings) // CHECK_TOKENS)
        peaked = self.embeddings[::step][:CHECK_TOKENS].astype(np.float32)
        peaked *= 40.0 / np.maximum(np.linalg.norm(peaked, axis=1, keepdims=True), 1e-6)
        dense = np.outer([1.0, -1.0, 10.0, -10.0], np.ones(d)).astype(np.float32)
        probe = np.concatenate([dense, peaked])
        error = self(probe).astype(np.float64) - reference_normalizer(probe, self.embeddings)
        return float(np.abs(error).max())

    def _rows(self, hidden: np.ndarray) -> np.ndarray:
        magnitude = np.abs(hidden).max(axis=1)
        magnitude[magnitude == 0] = 1.0
        pinned = np.empty((len(hidden), hidden.shape[1] + 2), np.float32)
        pinned[:, :-2] = hidden / magnitude[:, None]
        pinned[:, -2:] = (-1.0, 1.0)
        (logits,) = self._session.run(None, {"hidden": pinned})  # [rows, vocab], int8 product
        logits *= magnitude[:, None]
        top = logits.max(axis=1)
        rows, cols = _near_top(logits, top)
        approx = logits[rows, cols].astype(np.float64) - top[rows]
        exact = np.einsum(
            "rd,rd->r", hidden[rows], self.embeddings[cols].astype(np.float32)
        ).astype(np.float64) - top[rows]
        logits -= top[:, None]
        np.exp(logits, out=logits)
        total = logits.sum(axis=1).astype(np.float64)
        total += np.bincount(rows, np.exp(exact) - np.exp(approx), minlength=len(hidden))
        return (top + np.log(total)).astype(np.float32)


def _near_top(logits: np.ndarray, top: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of the logits within `EXACT_MARGIN` of their row's best, at most
    `EXACT_MAX` a row, the largest (a flat row has hundreds that near). A comparison finds
    them; only a row with more than `EXACT_MAX` is partitioned (an `argpartition` of every
    whole row was a quarter of the normalizer's time)."""
    # Flat indices: `np.nonzero` of the 2-d mask took as long as the partition it replaces.
    rows, cols = np.divmod(np.flatnonzero(logits > (top - EXACT_MARGIN)[:, None]), logits.shape[1])
    counts = np.bincount(rows, minlength=len(logits))
    if counts.max(initial=0) <= EXACT_MAX:
        return rows, cols
    keep = np.ones(len(rows), bool)
    starts = np.concatenate([[0], np.cumsum(counts)])
    for row in np.flatnonzero(counts > EXACT_MAX):
        lo, hi = starts[row], starts[row + 1]
        order = np.argpartition(logits[row, cols[lo:hi]], -EXACT_MAX)
        keep[lo:hi] = False
        keep[lo + order[-EXACT_MAX:]] = True
    return rows[keep], cols[keep]


def reference_normalizer(hidden: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
    """The float32 normalizer of a few rows (summed in float64), the table converted
    `TABLE_SLICE` tokens at a time."""
    hidden = np.asarray(hidden, np.float32)
    parts = [
        hidden @ embeddings[lo : lo + TABLE_SLICE].astype(np.float32).T
        for lo in range(0, len(embeddings), TABLE_SLICE)
    ]
    logits = np.concatenate(parts, axis=1).astype(np.float64)
    top = logits.max(axis=1)
    return top + np.log(np.exp(logits - top[:, None]).sum(axis=1))


def _model(shape: tuple[int, int]) -> bytes:
    """A one-node ONNX graph: float hidden [rows, d] x int8 weight [d, vocab] -> float
    logits, activations quantized per call (`com.microsoft.DynamicQuantizeMatMul`), with
    a scale per vocabulary column. The weight and scales are external initializers, given
    with the session options."""
    from onnx import TensorProto, helper

    def external(name: str, dtype: int, dims: tuple[int, ...]) -> TensorProto:
        tensor = TensorProto(name=name, data_type=dtype, dims=dims)
        tensor.data_location = TensorProto.EXTERNAL
        tensor.external_data.add(key="location", value="given-in-session-options")
        return tensor

    node = helper.make_node(
        "DynamicQuantizeMatMul", ["hidden", "weight", "scales"], ["logits"],
        domain="com.microsoft",
    )
    graph = helper.make_graph(
        [node],
        "vocabulary_logits",
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [None, shape[0]])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [None, shape[1]])],
        [external("weight", TensorProto.INT8, shape),
         external("scales", TensorProto.FLOAT, (shape[1],))],
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)],
    )
    return model.SerializeToString()

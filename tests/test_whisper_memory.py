"""Memory bounds of the Whisper recognizer that need no model (BENCHMARKS.md, "Memory:
what grew with the clip count")."""

from voice_ref.voice.asr.whisper_backend import ONEDNN_CACHE_CAPACITY, bound_onednn_cache


def test_onednn_cache_is_bounded_when_unset() -> None:
    environ: dict[str, str] = {"PATH": "/bin"}
    bound_onednn_cache(environ)
    assert environ["ONEDNN_PRIMITIVE_CACHE_CAPACITY"] == str(ONEDNN_CACHE_CAPACITY)
    assert ONEDNN_CACHE_CAPACITY < 1024  # oneDNN's default, which grew with every length


def test_a_users_onednn_cache_setting_wins() -> None:
    for name in ("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "DNNL_PRIMITIVE_CACHE_CAPACITY"):
        environ = {name: "512"}
        bound_onednn_cache(environ)
        assert environ == {name: "512"}

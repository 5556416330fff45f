"""A virtual sound card for end-to-end tests: PulseAudio without hardware.

One null sink, `table_air`, is the air above the table: the referee's loudspeaker
(the default sink) and the players (`play()`) both sound into it, and its monitor is the
default microphone. So the referee really hears its own voice, mixed with the players',
exactly as at a table, and the self-hearing guard is tested for real.

PortAudio (sounddevice) reaches PulseAudio through ALSA's pulse plugin (Debian package
`libasound2-plugins`); the plugin finds the server through the environment `env()` gives.
Needs the programs `pulseaudio` and `pactl`/`paplay` (Debian `pulseaudio`,
`pulseaudio-utils`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

SINK = "table_air"


class PulseUnavailable(RuntimeError):
    pass


class VirtualSoundCard:
    def __init__(self, rate: int = 16000) -> None:
        self.rate = rate
        self.runtime_dir = Path(tempfile.mkdtemp(prefix="voice_ref_pulse_"))

    def env(self) -> dict[str, str]:
        """The environment in which programs use this card (and only this card)."""
        env = dict(os.environ)
        env["XDG_RUNTIME_DIR"] = str(self.runtime_dir)
        env["PULSE_SERVER"] = f"unix:{self.runtime_dir}/pulse/native"
        env.pop("PULSE_SINK", None)
        env.pop("PULSE_SOURCE", None)
        return env

    def _run(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(cmd, env=self.env(), capture_output=True, text=True,
                              check=check, timeout=20)

    def _null_sink(self, name: str) -> list[str]:
        """The module and arguments of one sink of this card's air (see `start`)."""
        return ["module-null-sink", f"sink_name={name}", f"rate={self.rate}", "channels=1",
                "norewinds=1"]

    def start(self) -> VirtualSoundCard:
        for program in ("pulseaudio", "pactl", "paplay"):
            if shutil.which(program) is None:
                raise PulseUnavailable(f"`{program}` is not installed (apt install pulseaudio "
                                       "pulseaudio-utils)")
        self.runtime_dir.mkdir(parents=True, exist_ok=True)
        env = self.env()
        env["HOME"] = str(self.runtime_dir)  # the cookie and state files go here, not in ~
        # norewinds: a null sink renders ahead, and when a stream joins it rewinds and
        # re-renders, but its monitor (our microphone) has already been given the silence:
        # the start of each clip went missing from the recording (0.40 of 0.49 s heard).
        started = subprocess.run(
            ["pulseaudio", "-D", "--exit-idle-time=-1", "--system=false", "-n",
             "--disallow-exit", "--log-target=stderr",
             "--load=module-native-protocol-unix",
             f"--load={' '.join(self._null_sink(SINK))}"],
            env=env, capture_output=True, text=True, timeout=20,
        )
        if started.returncode != 0:
            raise PulseUnavailable(f"pulseaudio did not start: {started.stderr.strip()[-300:]}")
        deadline = time.monotonic() + 10
        while self._run("pactl", "info", check=False).returncode != 0:
            if time.monotonic() > deadline:
                raise PulseUnavailable("pulseaudio started but does not answer")
            time.sleep(0.1)
        self._run("pactl", "set-default-sink", SINK)
        self._run("pactl", "set-default-source", f"{SINK}.monitor")
        return self

    def play(self, wav: Path | str) -> None:
        """A player speaks: the file sounds into the air (blocks until it has been played)."""
        self._run("paplay", f"--device={SINK}", str(wav))

    def late_loudspeaker(self, delay_ms: int) -> str:
        """A loudspeaker that sounds into the table's air `delay_ms` after it is given
        audio, as a Bluetooth one does (a null sink looped into `table_air` with that
        latency). Its name, for `PULSE_SINK`: a program run with it speaks there."""
        name = "late_speaker"
        self._run("pactl", "load-module", *self._null_sink(name))
        self._run("pactl", "load-module", "module-loopback", f"source={name}.monitor",
                  f"sink={SINK}", f"latency_msec={delay_ms}")
        return name

    def unplug(self) -> None:
        """The table's air taken away as a USB microphone (and speaker) pulled out: its
        sink and monitor vanish, and streams on them end."""
        modules = self._run("pactl", "list", "short", "modules").stdout.splitlines()
        for line in modules:
            fields = line.split("\t")
            if fields[1] == "module-null-sink" and f"sink_name={SINK} " in fields[2] + " ":
                self._run("pactl", "unload-module", fields[0])

    def plug_back(self) -> None:
        """The air back, as a device plugged in again, and the system's defaults again."""
        self._run("pactl", "load-module", *self._null_sink(SINK))
        self._run("pactl", "set-default-sink", SINK)
        self._run("pactl", "set-default-source", f"{SINK}.monitor")

    def stop(self) -> None:
        env = self.env()
        env["HOME"] = str(self.runtime_dir)
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=20)
        shutil.rmtree(self.runtime_dir, ignore_errors=True)

    def __enter__(self) -> VirtualSoundCard:
        return self.start()

    def __exit__(self, *_exc) -> None:
        self.stop()

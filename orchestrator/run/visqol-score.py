# ViSQOL v3 (PyPI visqol-python, pinned in orchestrator/lib/system/paths.js) on pairs of .wav files that
# run/audio-quality.js wrote, already aligned to within a few milliseconds. Run by the venv's python -I with argv only:
#   visqol-score.py <speech|audio> <reference.wav> <degraded.wav> [<reference.wav> <degraded.wav> ...]
# Both files of a pair are 48 kHz mono; speech mode scores them at 16 kHz (resampled here, polyphase). Prints one JSON
# line: {"version": ..., "numba": bool, "scores": [{"mosLqo": float|null, "error": str|null}, ...]}.
import json
import sys

import numpy as np
import soundfile
from scipy.signal import resample_poly

import visqol
from visqol import VisqolApi
from visqol.numba_accel import has_numba


def main(argv):
    mode, files = argv[0], argv[1:]
    if mode not in ("speech", "audio") or not files or len(files) % 2:
        sys.exit("usage: visqol-score.py <speech|audio> <reference.wav> <degraded.wav> [...]")
    api = VisqolApi()
    if mode == "speech":
        # The polynomial mapper: the lattice one needs ai-edge-litert (TFLite), which setup does not install.
        api.create(mode=mode, use_lattice_model=False)
    else:
        api.create(mode=mode)
    scores = []
    for reference, degraded in zip(files[0::2], files[1::2]):
        try:
            ref, ref_rate = soundfile.read(reference, dtype="float64")
            deg, deg_rate = soundfile.read(degraded, dtype="float64")
            if ref_rate != 48000 or deg_rate != 48000:
                raise ValueError(f"expected 48 kHz, got {ref_rate} and {deg_rate}")
            rate = 48000
            if mode == "speech":
                ref, deg, rate = resample_poly(ref, 1, 3), resample_poly(deg, 1, 3), 16000
            result = api.measure_from_arrays(np.ascontiguousarray(ref), np.ascontiguousarray(deg), rate)
            scores.append({"mosLqo": float(result.moslqo), "error": None})
        except Exception as error:  # one bad pair must not lose the others' scores
            scores.append({"mosLqo": None, "error": f"{type(error).__name__}: {error}"})
    print(json.dumps({"version": visqol.__version__, "numba": has_numba(), "scores": scores}))


if __name__ == "__main__":
    main(sys.argv[1:])

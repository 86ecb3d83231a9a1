#!/usr/bin/python3
"""Writes the calibration sets of tests/ptq: for each model of cases.txt
(described in bundles/models/manifest.json), 20 samples of its input drawn as the
reference inputs are (standard normal, regenerate.py), seeded, in two batch
files of 10: calibration/MODEL/INPUT.000.npy and INPUT.001.npy, each of shape
[10, rest of the input's shape]. kiln calibrates on 16 of them and holds out
every fifth for the accuracy report.

usage: make_calibration.py   (needs numpy; Debian's python3-numpy)
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "bundles", "models")
SAMPLES_PER_FILE, FILES = 10, 2


# Each model's seed, fixed: the sets were first drawn with the models' order
# in the manifest of the time, which later models shifted.
SEEDS = {"ds_cnn_kws": 1300, "lenet5": 1301, "mlp": 1302, "resnet8_cifar": 1303,
         "audio_m5": 1304, "video_3d": 1305}


def main():
    manifest = json.load(open(os.path.join(MODELS, "manifest.json")))
    with open(os.path.join(HERE, "cases.txt")) as f:
        names = sorted({line.split()[0] for line in f if line.strip()})
    for name in names:
        if name not in SEEDS:
            raise SystemExit("make_calibration.py: give %s a seed in SEEDS" % name)
        entry = manifest[name]
        rng = np.random.default_rng(SEEDS[name])
        out = os.path.join(HERE, "calibration", name)
        os.makedirs(out, exist_ok=True)
        rest = entry["input_shape"][1:]
        for f in range(FILES):
            batch = rng.standard_normal([SAMPLES_PER_FILE] + rest).astype("<f4")
            np.save(os.path.join(out, "%s.%03d.npy" % (entry["input_name"], f)), batch)


if __name__ == "__main__":
    main()

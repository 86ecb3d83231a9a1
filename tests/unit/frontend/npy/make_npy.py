#!/usr/bin/python3
"""Writes the .npy files of //tests/unit/frontend:npy_test with numpy.save,
the writer the files kiln reads come from.

usage: make_npy.py OUT_DIR   (needs python3-numpy)
"""
import os
import sys

import numpy as np

out = sys.argv[1]
arrays = {
    "shape_i64": np.array([4, 3], dtype=np.int64),
    "scalar_i32": np.array(-7, dtype=np.int32),
    "image_u8": np.arange(6, dtype=np.uint8).reshape(2, 3),
    "mask_bool": np.array([True, False, True]),
    "half_f16": np.array([1.5, -2.0], dtype=np.float16),
    "codes_i8": np.array([-128, 127], dtype=np.int8),
    "values_f64": np.array([[0.25], [-1e300]], dtype=np.float64),
    "big_endian_i32": np.array([1, 2], dtype=">i4"),
    "complex_c8": np.array([1 + 2j], dtype=np.complex64),
    "fortran_f4": np.asfortranarray(np.ones((2, 3), dtype=np.float32)),
}
for name, a in arrays.items():
    np.save(os.path.join(out, name + ".npy"), a)

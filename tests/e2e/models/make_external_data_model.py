#!/usr/bin/python3
"""Writes ds_cnn_kws_external.onnx and ds_cnn_kws_external.onnx.data: the
shipped ds_cnn_kws (bundles/models) with its weights in an external data
file, as PyTorch's torch.export-based exporter writes models (model.onnx
beside model.onnx.data). Initializers of 1 KiB and more go to the file, the
smaller ones (biases) stay in the model, so both kinds are read. The model's
reference input and output are ds_cnn_kws's own (PyTorch).

Run from this directory: /usr/bin/python3 make_external_data_model.py
"""
import os

import onnx

SOURCE = os.path.join("..", "..", "..", "bundles", "models", "ds_cnn_kws.onnx")
MODEL = "ds_cnn_kws_external.onnx"
DATA = MODEL + ".data"

model = onnx.load(SOURCE)
if os.path.exists(DATA):
    os.remove(DATA)  # save_model appends to an existing file
onnx.save_model(model, MODEL, save_as_external_data=True,
                all_tensors_to_one_file=True, location=DATA,
                size_threshold=1024)
external = [t.name for t in onnx.load(MODEL, load_external_data=False).graph.initializer
            if t.data_location == onnx.TensorProto.EXTERNAL]
print("%s: %d initializers in %s (%d bytes)" % (MODEL, len(external), DATA,
                                               os.path.getsize(DATA)))

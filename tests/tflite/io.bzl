"""The one input and one output of each TFLite test model, as (name, shape)
or, for int8 tensors, (name, shape, (scale, zero_point)): facts read from the
model files (models/README.md, refs/manifest.txt), against which
run_bundle_test checks the bundle's kiln_tensor descriptors and macros."""

_IC_IN = [1, 32, 32, 3]
_VWW_IN = [1, 96, 96, 3]
_KWS_IN = [1, 49, 10, 1]
_SOFTMAX_OUT = (0.00390625, -128)

TFLITE_MODEL_IO = {
    "ad01_fp32": (("input_1", [1, 640]), ("Identity", [1, 640])),
    "ad01_int8": (("input_1", [1, 640], (0.391015232, 89)), ("Identity", [1, 640], (0.364498466, 96))),
    "hello_world_float": (("serving_default_dense_input:0", [1, 1]), ("StatefulPartitionedCall:0", [1, 1])),
    "hello_world_int8": (
        ("serving_default_dense_input:0", [1, 1], (0.0244801156, -128)),
        ("StatefulPartitionedCall:0", [1, 1], (0.00829095673, 5)),
    ),
    "kws_ref_model": (("input_1", _KWS_IN, (0.584702909, 83)), ("Identity", [1, 12], _SOFTMAX_OUT)),
    "kws_ref_model_float32": (("input_1", _KWS_IN), ("Identity", [1, 12])),
    "person_detect": (("input", [1, 96, 96, 1], (0.00784313772, -1)), ("MobilenetV1/Predictions/Reshape_1", [1, 2], _SOFTMAX_OUT)),
    "mobilenet_v2_quantized_1x3x224x224": (("input.5", [1, 3, 224, 224], (0.0186311156, -14)), ("Xq.1", [1, 1000], (0.113735318, -24))),
    "micro_speech_quantized": (("Reshape_1", [1, 1960], (0.101715684, -128)), ("labels_softmax", [1, 4], _SOFTMAX_OUT)),
    "pretrainedResnet": (("input_1", _IC_IN), ("Identity", [1, 10])),
    "trained_lstm": (("serving_default_fixed_input:0", [1, 28, 28]), ("StatefulPartitionedCall:0", [1, 10])),
    "trained_lstm_int8": (("serving_default_fixed_input:0", [1, 28, 28], (0.00392156886, -128)), ("StatefulPartitionedCall:0", [1, 10], _SOFTMAX_OUT)),
    "pretrainedResnet_quant": (("input_1_int8", _IC_IN, (1.0, -128)), ("Identity_int8", [1, 10], _SOFTMAX_OUT)),
    "vww_96_float": (("input_1", _VWW_IN), ("Identity", [1, 2])),
    "vww_96_int8": (("input_1_int8", _VWW_IN, (0.00392156886, -128)), ("Identity_int8", [1, 2], _SOFTMAX_OUT)),
}

# The models Arm NN's reference backend runs (tools/tflite_refs/README.md);
# kws_ref_model_float32 (int8 weights, float activations) as its twin with
# the weights dequantized, which is how kiln computes it. person_detect,
# which Arm NN rejects, is checked by the ranking of its two real test images
# (interpreter_test); like every int8 model it is compiled and checked bit
# for bit against the interpreter. trained_lstm, whose
# UNIDIRECTIONAL_SEQUENCE_LSTM Arm NN lacks, against TFLite's float kernels
# in numpy (tools/tflite_refs/float_oracle.py); trained_lstm_int8 against
# TFLM's integer LSTM in numpy (integer_lstm_oracle.py) followed by Arm NN.
FLOAT_MODELS = ["ad01_fp32", "hello_world_float", "kws_ref_model_float32", "pretrainedResnet", "trained_lstm", "vww_96_float"]
INT8_MODELS = ["ad01_int8", "hello_world_int8", "kws_ref_model", "micro_speech_quantized", "person_detect", "pretrainedResnet_quant", "trained_lstm_int8", "vww_96_int8"]

# The int8 models whose end-to-end output stays within TFLite's tolerance of
# Arm NN's. In kws_ref_model and pretrainedResnet_quant every layer agrees
# within 1 step, but Arm NN rounds through float, and that drift builds up
# over the layers until the final SOFTMAX amplifies it; those two are checked
# layer by layer (refs/layers).
INT8_END_TO_END_MODELS = ["ad01_int8", "hello_world_int8", "micro_speech_quantized", "trained_lstm_int8", "vww_96_int8"]

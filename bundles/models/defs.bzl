"""The models shipped in this folder (NAME.onnx, NAME.input.bin, NAME.output.bin)."""

SHIPPED_MODELS = [
    "lenet5",
    "mlp",
    "ds_cnn_kws",
    "resnet8_cifar",
]

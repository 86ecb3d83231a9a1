"""The models shipped in this folder (NAME.onnx, NAME.input.bin, NAME.output.bin)."""

SHIPPED_MODELS = [
    "lenet5",
    "mlp",
    "ds_cnn_kws",
    "resnet8_cifar",
]

# The suite's small models (suite.py), shipped here too; its large ones are
# in @suite_models (WORKSPACE).
SUITE_MODELS = [
    "unet_small",
    "transformer_encoder",
    "vit_tiny",
    "lstm",
    "gru",
    "attention_seqfirst",
    "pointnet_small",
    "odd_convs",
    "audio_m5",
    "wav2vec_features",
    "style_transfer",
    "espcn",
    "conformer_conv",
    "video_3d",
    "yolo_small",
    "dcgan_small",
    "dilated_context",
    "vocoder_small",
    "unet3d_small",
    "lrn_net",
]

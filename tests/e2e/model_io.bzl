"""The one input and one output of each model the end-to-end tests run, as
(name, shape): known facts about the models (bundles/models/manifest.json,
tests/e2e/models/make_fusion_probe.py, and PyTorch's export of the shared
and suite ones), against which run_bundle_test checks every field of the
bundle's kiln_tensor descriptors and the header's tensor macros."""

load("@suite_models//:defs.bzl", "SUITE_LARGE_MODELS")

_IMAGE = ("input", [1, 3, 224, 224])
_CLASSES_10 = ("output", [1, 10])

MODEL_IO = {
    "lenet5": (("input", [1, 1, 28, 28]), _CLASSES_10),
    "mlp": (("input", [1, 784]), _CLASSES_10),
    "ds_cnn_kws": (("input", [1, 1, 49, 10]), ("output", [1, 12])),
    "resnet8_cifar": (("input", [1, 3, 32, 32]), _CLASSES_10),
    "fusion_probe": (("x", [1, 8, 4, 4]), ("y", [1, 24, 4, 4])),
    "const_input_probe": (("x", [1, 24]), ("y", [1, 5, 8])),
    "mobilenet_v2": (_IMAGE, ("output", [1, 1000])),
    "resnet18": (_IMAGE, ("output", [1, 1000])),
    "unet_small": (("input", [1, 3, 64, 64]), ("output", [1, 2, 64, 64])),
    "transformer_encoder": (("input", [1, 16, 64]), ("output", [1, 16, 64])),
    "vit_tiny": (("input", [1, 3, 32, 32]), _CLASSES_10),
    "lstm": (("input", [16, 1, 32]), _CLASSES_10),
    "gru": (("input", [16, 1, 32]), _CLASSES_10),
    "attention_seqfirst": (("input", [1, 24, 64]), ("output", [1, 24, 64])),
    "pointnet_small": (("input", [1, 3, 256]), _CLASSES_10),
    "odd_convs": (("input", [1, 16, 20, 20]), ("output", [1, 8, 39, 39])),
    "audio_m5": (("input", [1, 1, 4000]), ("output", [1, 35])),
    "wav2vec_features": (("input", [1, 1, 4000]), ("output", [1, 12, 128])),
    "style_transfer": (("input", [1, 3, 64, 64]), ("output", [1, 3, 64, 64])),
    "espcn": (("input", [1, 1, 64, 64]), ("output", [1, 1, 192, 192])),
    "conformer_conv": (("input", [1, 50, 64]), ("output", [1, 50, 64])),
    "video_3d": (("input", [1, 3, 4, 32, 32]), _CLASSES_10),
    "yolo_small": (("input", [1, 3, 128, 128]), ("output", [1, 24, 8, 8])),
    "dcgan_small": (("input", [1, 32, 1, 1]), ("output", [1, 3, 64, 64])),
    "dilated_context": (("input", [1, 16, 32, 32]), ("output", [1, 8, 32, 32])),
    "vocoder_small": (("input", [1, 16, 16]), ("output", [1, 1, 256])),
    "unet3d_small": (("input", [1, 1, 8, 16, 16]), ("output", [1, 2, 8, 16, 16])),
    "lrn_net": (("input", [1, 3, 32, 32]), ("output", [1, 10])),
}

# The suite's large models (those present): torchvision classifiers, and a
# segmentation model's map of 21 classes.
_SEGMENTATION = {"deeplabv3_mobilenet_v3_large": ("output", [1, 21, 224, 224])}
MODEL_IO.update({
    model: (_IMAGE, _SEGMENTATION.get(model, ("output", [1, 1000])))
    for model in SUITE_LARGE_MODELS
})

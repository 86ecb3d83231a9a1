#!/usr/bin/python3
"""Regenerate kiln's test models (ONNX + reference input/output).

Rebuilds the six test networks in PyTorch with seeded random weights, exports
each to ONNX (opset 13, batch 1, eval mode) and writes, for every model NAME:

    NAME.onnx         the exported graph (BatchNorm folded into Conv by the
                      exporter, so the graph has the op counts listed in the
                      manifest)
    NAME.input.bin    reference input, raw little-endian float32
    NAME.output.bin   reference output of the PyTorch eager model, raw
                      little-endian float32
    NAME.input.npy    the same input as a .npy file
    NAME.output.npy   the same output as a .npy file
    manifest.json     per-model graph input/output names and shapes, opset,
                      params, flops and ONNX op counts (merged into an existing
                      manifest.json in the output folder, if any)

Models:
    lenet5         LeNet-5 on 1x1x28x28 (MNIST-sized)
    mlp            784-256-128-10 multilayer perceptron on 1x784
    ds_cnn_kws     DS-CNN keyword spotting (MLPerf Tiny style) on 1x1x49x10
    resnet8_cifar  MLPerf Tiny ResNet-8 for CIFAR-10 on 1x3x32x32
    mobilenet_v2   torchvision MobileNetV2 on 1x3x224x224 (large, --all)
    resnet18       torchvision ResNet-18 on 1x3x224x224  (large, --all)

Weights are random (no pretrained weights are downloaded):
  * the model is built right after torch.manual_seed(SEED), so parameters get
    PyTorch's default initialization drawn from that seed;
  * BatchNorm running statistics and affine parameters are then randomized
    (so BN folding in the compiler is actually exercised) from a generator
    seeded with SEED+1, per BatchNorm layer in module order:
    running_mean ~ N(0, 0.1), running_var ~ U(0.5, 1.5),
    weight ~ U(0.5, 1.5), bias ~ N(0, 0.1);
  * the input is torch.randn from a generator seeded with SEED+2.
With the default seed (1234) and Debian 12's python3-torch (1.13) /
python3-torchvision (0.14) / python3-onnx (1.12) this reproduces the models in
the team's shared model folder: the .onnx and input files byte for byte. The
reference outputs come from BLAS/oneDNN kernels, so their last bits depend on
the CPU kernels that are chosen. On the dev machines, OPENBLAS_CORETYPE=Haswell
is set in the environment, and with that setting outputs differ from the
committed ones by about 1e-7 relative. With OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset, the outputs were bit-identical too. Compare outputs
with a tolerance, never bit for bit.

"flops" counts 2 * multiply-accumulates of convolutions and matrix
multiplications (biases, BatchNorm, activations and pooling are not counted),
measured on the aten ops that the eager model runs.

Requirements (Debian 12):
    apt-get install -y python3-torch python3-torchvision python3-onnx \
        libopenblas0-openmp
and run it with /usr/bin/python3 (a pyenv/venv python does not see Debian's
packages). torchvision is only needed for mobilenet_v2 and resnet18.
onnxruntime is not used.

Usage:
    /usr/bin/python3 bundles/models/regenerate.py                # 4 small models into this folder
    /usr/bin/python3 bundles/models/regenerate.py --all --out /tmp/models
    /usr/bin/python3 bundles/models/regenerate.py --models lenet5,mlp --seed 7 --out /tmp/m
    /usr/bin/python3 bundles/models/regenerate.py --all --out /tmp/m \\
        --check ../shared/models/manifest.json   # compare op counts/params/flops/shapes
"""

import argparse
import collections
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn

SMALL_MODELS = ["lenet5", "mlp", "ds_cnn_kws", "resnet8_cifar"]
LARGE_MODELS = ["mobilenet_v2", "resnet18"]
ALL_MODELS = SMALL_MODELS + LARGE_MODELS
OPSET = 13


# --------------------------------------------------------------------------
# Architectures. Module attribute names matter: the exporter derives ONNX node
# names from them (e.g. "/features/features.0/Conv").
# --------------------------------------------------------------------------


class LeNet5(nn.Module):
    """LeNet-5: conv5x5(6, pad 2)-relu-maxpool, conv5x5(16)-relu-maxpool, FC 120-84-10."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
            nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, num_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


class MLP(nn.Module):
    """784-256-128-10 perceptron with ReLU."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
            nn.Linear(128, num_classes))

    def forward(self, x):
        return self.net(x)


def _conv_bn_relu(cin, cout, kernel, stride=1, padding=0, groups=1):
    return [nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU()]


class DSCNN(nn.Module):
    """DS-CNN for keyword spotting (MLPerf Tiny KWS), input 1x1x49x10 MFCCs.

    conv 10x4 stride 2 (64 ch) then 4 depthwise-separable blocks
    (dw 3x3 + pw 1x1, 64 ch), each conv followed by BN+ReLU, global average
    pool (25x5) and a 12-way fully connected layer.
    """

    def __init__(self, num_classes=12, channels=64):
        super().__init__()
        layers = _conv_bn_relu(1, channels, (10, 4), 2, (5, 1))
        for _ in range(4):
            layers += _conv_bn_relu(channels, channels, 3, 1, 1, groups=channels)
            layers += _conv_bn_relu(channels, channels, 1)
        self.features = nn.Sequential(*layers)
        # nn.AvgPool2d exports as Pad(+Constant) + AveragePool at opset 13.
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


class ResNet8Stack(nn.Module):
    """One MLPerf Tiny ResNet-8 stack: two 3x3 conv+BN, residual add, ReLU.

    When the shape changes, the shortcut is a 1x1 strided conv with bias and no
    BN (as in the MLPerf Tiny Keras reference model).
    """

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.short = nn.Conv2d(cin, cout, 1, stride) if (stride != 1 or cin != cout) else None

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        shortcut = x if self.short is None else self.short(x)
        return self.relu(y + shortcut)


class ResNet8(nn.Module):
    """MLPerf Tiny ResNet-8 for CIFAR-10 (16/32/64 channels), input 1x3x32x32."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(*_conv_bn_relu(3, 16, 3, 1, 1))
        self.stack1 = ResNet8Stack(16, 16, 1)
        self.stack2 = ResNet8Stack(16, 32, 2)
        self.stack3 = ResNet8Stack(32, 64, 2)
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = self.stack3(self.stack2(self.stack1(self.stem(x))))
        return self.fc(torch.flatten(self.pool(x), 1))


def _torchvision(name):
    import torchvision  # only needed for the two large models
    # weights=None: random init, nothing is downloaded.
    return getattr(torchvision.models, name)(weights=None)


# name -> (constructor, input shape)
MODELS = {
    "lenet5": (LeNet5, (1, 1, 28, 28)),
    "mlp": (MLP, (1, 784)),
    "ds_cnn_kws": (DSCNN, (1, 1, 49, 10)),
    "resnet8_cifar": (ResNet8, (1, 3, 32, 32)),
    "mobilenet_v2": (lambda: _torchvision("mobilenet_v2"), (1, 3, 224, 224)),
    "resnet18": (lambda: _torchvision("resnet18"), (1, 3, 224, 224)),
}


# --------------------------------------------------------------------------
# Building, counting, exporting.
# --------------------------------------------------------------------------


def build(name, seed, models=MODELS):
    """Returns (eval-mode model with seeded random weights, input tensor).

    models maps name -> (constructor, input shape); suite.py passes its own.
    """
    ctor, input_shape = models[name]
    torch.manual_seed(seed)
    model = ctor()
    gen = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.normal_(0.0, 0.1, generator=gen)
                m.running_var.uniform_(0.5, 1.5, generator=gen)
                m.weight.uniform_(0.5, 1.5, generator=gen)
                m.bias.normal_(0.0, 0.1, generator=gen)
    model.eval()
    x = torch.randn(*input_shape, generator=torch.Generator().manual_seed(seed + 2))
    return model, x


def count_flops(model, x):
    """Runs the model once; returns (output, flops by part).

    flops = 2 * MACs of aten convolution / addmm / mm / bmm ops.
    """
    from torch.utils._python_dispatch import TorchDispatchMode

    aten = torch.ops.aten
    parts = collections.Counter(conv=0, linear=0, attn=0)

    class Counter(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            packet = getattr(func, "overloadpacket", None)
            if packet is aten.convolution:
                w = args[1]
                parts["conv"] += 2 * out.numel() * int(np.prod(w.shape[1:]))
            elif packet is aten.addmm:
                a, b = args[1], args[2]
                parts["linear"] += 2 * a.shape[0] * a.shape[1] * b.shape[1]
            elif packet is aten.mm:
                a, b = args[0], args[1]
                parts["linear"] += 2 * a.shape[0] * a.shape[1] * b.shape[1]
            elif packet in (aten.bmm, aten.baddbmm):
                a, b = (args[0], args[1]) if packet is aten.bmm else (args[1], args[2])
                parts["attn"] += 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
            return out

    with torch.no_grad(), Counter():
        y = model(x)
    return y, dict(parts)


def export(model, x, path, opset=OPSET):
    torch.onnx.export(
        model, (x,), path,
        export_params=True,
        opset_version=opset,
        do_constant_folding=True,  # folds BN into Conv, leaves Constant/Clip as in the manifest
        input_names=["input"],
        output_names=["output"],
        training=torch.onnx.TrainingMode.EVAL)


def pin_output_shape(path, shape):
    """Writes the eager output shape into the graph's output where the
    exporter left a dimension symbolic (swin_t's batch dimension in PyTorch
    1.13); a file without symbolic output dimensions is left as it is."""
    import onnx
    m = onnx.load(path)
    dims = m.graph.output[0].type.tensor_type.shape.dim
    if not any(d.HasField("dim_param") for d in dims):
        return
    for d, n in zip(dims, shape):
        if d.HasField("dim_param"):
            d.dim_value = n
    onnx.save(m, path)


def onnx_summary(path):
    """Reads the exported file back: graph input/output names+shapes, op counts."""
    import onnx
    m = onnx.load(path)
    onnx.checker.check_model(m)
    g = m.graph
    init_names = {i.name for i in g.initializer}
    inputs = [i for i in g.input if i.name not in init_names]
    if len(inputs) != 1 or len(g.output) != 1:
        raise RuntimeError(f"{path}: expected one graph input and one output")

    def shape(v):
        return [d.dim_value for d in v.type.tensor_type.shape.dim]

    return {
        "input_name": inputs[0].name,
        "input_shape": shape(inputs[0]),
        "output_name": g.output[0].name,
        "output_shape": shape(g.output[0]),
        "opset": next(o.version for o in m.opset_import if o.domain in ("", "ai.onnx")),
        "onnx_ops": dict(sorted(collections.Counter(n.op_type for n in g.node).items())),
    }


def generate(name, seed, out_dir, models=MODELS, opset=OPSET):
    model, x = build(name, seed, models)
    y, parts = count_flops(model, x)
    with torch.no_grad():
        y_plain = model(x)  # reference output, eager, without the counting mode
    assert torch.equal(y, y_plain)
    path = os.path.join(out_dir, name + ".onnx")
    export(model, x, path, opset)
    pin_output_shape(path, list(y.shape))

    xi = x.numpy().astype("<f4")
    yo = y_plain.numpy().astype("<f4")
    xi.tofile(os.path.join(out_dir, name + ".input.bin"))
    yo.tofile(os.path.join(out_dir, name + ".output.bin"))
    np.save(os.path.join(out_dir, name + ".input.npy"), xi)
    np.save(os.path.join(out_dir, name + ".output.npy"), yo)

    entry = {"onnx": name + ".onnx"}
    entry.update(onnx_summary(path))
    entry["params"] = int(sum(p.numel() for p in model.parameters()))
    entry["flops"] = int(sum(parts.values()))
    if entry["input_shape"] != list(x.shape) or entry["output_shape"] != list(y.shape):
        raise RuntimeError(f"{name}: ONNX shapes {entry['input_shape']}->{entry['output_shape']}"
                           f" differ from eager {list(x.shape)}->{list(y.shape)}")
    return entry


def merge_manifest(out_dir, generated):
    """Merges the generated entries into out_dir/manifest.json and reports them."""
    manifest_path = os.path.join(out_dir, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    for name, entry in generated.items():
        manifest[name] = entry
        print(f"{name}: params={entry['params']} flops={entry['flops']} "
              f"ops={sum(entry['onnx_ops'].values())} -> {os.path.join(out_dir, name + '.onnx')}")
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


CHECK_FIELDS = ("input_shape", "output_shape", "opset", "params", "flops", "onnx_ops")


def check(manifest, ref_path):
    """Compares the generated entries with a reference manifest; returns #mismatches."""
    with open(ref_path) as f:
        ref = json.load(f)
    bad = 0
    for name, entry in manifest.items():
        if name.startswith("_"):
            continue
        if name not in ref:
            print(f"check: {name}: not in {ref_path}")
            bad += 1
            continue
        for field in CHECK_FIELDS:
            if field in ref[name] and ref[name][field] != entry[field]:
                print(f"check: {name}.{field}: got {entry[field]}, reference {ref[name][field]}")
                bad += 1
    print(f"check: {'OK' if bad == 0 else str(bad) + ' mismatch(es)'} against {ref_path}")
    return bad


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(
        description="Regenerate kiln's ONNX test models with seeded random weights.")
    ap.add_argument("--out", default=here,
                    help="output folder (default: this script's folder)")
    ap.add_argument("--models", default=",".join(SMALL_MODELS),
                    help="comma-separated models (default: %(default)s); one of: "
                    + ", ".join(ALL_MODELS))
    ap.add_argument("--all", action="store_true",
                    help="all six models, including mobilenet_v2 and resnet18")
    ap.add_argument("--seed", type=int, default=1234, help="random seed (default: %(default)s)")
    ap.add_argument("--check", metavar="MANIFEST",
                    help="compare shapes/opset/params/flops/onnx_ops with this manifest.json "
                    "and exit non-zero on a mismatch")
    args = ap.parse_args(argv)

    names = ALL_MODELS if args.all else [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(ALL_MODELS)}")
    os.makedirs(args.out, exist_ok=True)

    generated = {name: generate(name, args.seed, args.out) for name in names}
    merge_manifest(args.out, generated)
    if args.check:
        return 1 if check(generated, args.check) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

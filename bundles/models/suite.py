#!/usr/bin/python3
"""Generate kiln's model suite: architectures kiln was not tuned on.

Issue 14: a user brings every kind of model, so the suite spans the
architectures that exercise other kernels than the six test models do
(ConvTranspose, Resize, skip Concats, attention, LayerNorm, GELU, recurrent
cells, squeeze-excitation, grouped and 5x5 depthwise convolutions), exported
at opsets 11 to 17. Each model is built, randomized, exported and described
exactly as regenerate.py does it (same seed scheme, same NAME.onnx /
NAME.input.bin / NAME.output.bin / .npy files, same manifest.json fields),
with the opset listed per model below.

Small models (under 1 MB of weights) are shipped in this folder, so their
end-to-end tests run on a clean clone:
    unet_small           U-Net on 1x3x64x64: 3 levels (16/32/64 channels), a
                         ConvTranspose 2x2/2 and a bilinear Resize (half-pixel
                         coordinates) upsampling, skip Concats; opset 11
    transformer_encoder  2 post-norm encoder layers (4-head attention,
                         LayerNormalization, GELU feed-forward 128 wide) on
                         1x16x64 tokens; opset 17
    vit_tiny             ViT on 1x3x32x32: 4x4 patches, 64 wide, 2 pre-norm
                         layers, class token; opset 15
    lstm                 2-layer LSTM (32 -> 64) over 16 steps, linear head;
                         opset 14
    gru                  2-layer GRU (32 -> 64) over 16 steps, linear head;
                         opset 12
    attention_seqfirst   2 pre-norm nn.TransformerEncoderLayers (4 heads, GELU
                         feed-forward 128 wide, causal mask) on 1x24x64
                         tokens: PyTorch's own attention, which runs
                         sequence-first inside, and LayerNorm written out;
                         opset 14
    pointnet_small       PointNet on 1x3x256 points: a shared MLP as 1x1
                         Conv1d (3 -> 32 -> 64 -> 256), max and mean over the
                         points, linear head; opset 13
    odd_convs            a 4x4 kernel, 1x7 and 7x1 Convs, a grouped
                         ConvTranspose with output_padding, dilated
                         ConvTransposes of stride 1 and 2, a grouped strided
                         Conv, on 1x16x20x20; opset 13
  and from a later hunt for cliffs, kinds of model outside vision classifiers:
    audio_m5             M5 raw-audio classifier on 1x1x4000: Conv1d of 80
                         taps at stride 4, BatchNorm1d, MaxPool1d; opset 11
    wav2vec_features     wav2vec 2.0's feature encoder on 1x1x4000: strided
                         Conv1d, GroupNorm, GELU, LayerNorm; opset 12
    style_transfer       fast style transfer on 1x3x64x64: reflection Pads,
                         InstanceNorm, residual blocks, nearest upsampling;
                         opset 16
    espcn                super-resolution by 3 on 1x1x64x64: PixelShuffle
                         (DepthToSpace); opset 14
    conformer_conv       Conformer's convolution module on 1x50x64: GLU, a
                         depthwise Conv1d of 31 taps, SiLU; opset 17
    video_3d             R3D-style video classifier on 1x3x4x32x32: Conv3d,
                         BatchNorm3d; opset 13
    yolo_small           YOLOv5-like detector on 1x3x128x128: SiLU, C3, SPPF
                         (5x5 MaxPools of stride 1), nearest upsampling;
                         opset 15
  and from a third hunt, for the lowerings its cliffs brought:
    dcgan_small          DCGAN's generator from a 1x32x1x1 code to 1x3x64x64:
                         ConvTransposes of 4x4 at stride 2 (a Conv per
                         output phase) and of 3x3 at stride 2 with output
                         padding, BatchNorm, Tanh; opset 13
    dilated_context      dilated 3x3 Convs (dilations 1, 2, 4, 8) on
                         1x16x32x32: dilation 2 over its sub-grids as a
                         batch; opset 12
    vocoder_small        HiFi-GAN-like vocoder from 1x16x16 mel frames to
                         1x1x256 samples: ConvTranspose1d by 8 (kernel 16)
                         and 2, dilated Conv1d residual blocks, LeakyReLU;
                         opset 14
    unet3d_small         3-D U-Net on 1x1x8x16x16: Conv3d, BatchNorm3d,
                         MaxPool3d, ConvTranspose3d 2x2x2 of stride 2, a skip
                         Concat; opset 16
  and from a ninth hunt:
    lrn_net              AlexNet-style classifier on 1x3x32x32:
                         LocalResponseNorm, exported as an If on the input's
                         rank (folded at import), 3x3 MaxPools of stride 2;
                         opset 13
Large models (torchvision, 1x3x224x224 -> 1x1000) are not shipped; write
them elsewhere with --large and point KILN_SUITE_MODELS at that folder
(default ../shared/suite, see tests/shared_models.bzl):
    squeezenet1_1 (opset 11), shufflenet_v2_x1_0 (12), mobilenet_v3_small (13),
    mobilenet_v3_large (14), efficientnet_b0 (15), mnasnet1_0 (16),
    regnet_x_400mf (17), regnet_y_400mf (13), densenet121 (14),
    googlenet (15), resnet50 (16), and from a later hunt for cliffs:
    convnext_tiny (17; 7x7 depthwise, LayerNorm and GELU on channels-last
    MatMuls), resnext50_32x4d (13; grouped 3x3 of 32 groups),
    efficientnet_v2_s (15; fused MBConv), inception_v3 (13; 1x7 and 7x1
    factorized Convs), swin_t (17; shifted-window attention),
    deeplabv3_mobilenet_v3_large (12; dilated Convs, ASPP with dilations 12,
    24 and 36 on a 14x14 map, a bilinear Resize to 21 x 224 x 224)

Requirements: tools/install_deps.sh suite (Debian 12's python3-torch 1.13,
python3-torchvision 0.14, python3-onnx), run with /usr/bin/python3.

Usage:
    /usr/bin/python3 bundles/models/suite.py                  # small ones, into this folder
    /usr/bin/python3 bundles/models/suite.py --large --out ../shared/suite
    /usr/bin/python3 bundles/models/suite.py --models unet_small --out /tmp/m
"""

import argparse
import os
import sys

import torch
import torch.nn as nn

import regenerate


class DoubleConv(nn.Sequential):
    """Two 3x3 conv + BatchNorm + ReLU, as every U-Net level has."""

    def __init__(self, cin, cout):
        super().__init__(*regenerate._conv_bn_relu(cin, cout, 3, 1, 1),
                         *regenerate._conv_bn_relu(cout, cout, 3, 1, 1))


class UNetSmall(nn.Module):
    """Three-level U-Net; the two upsamplings are the two kinds users write:
    a learned ConvTranspose 2x2 stride 2, and a bilinear resize."""

    def __init__(self, classes=2):
        super().__init__()
        self.enc1 = DoubleConv(3, 16)
        self.enc2 = DoubleConv(16, 32)
        self.bottom = DoubleConv(32, 64)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(64, 32, 2, stride=2)
        self.dec2 = DoubleConv(64, 32)
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.dec1 = DoubleConv(48, 16)
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottom(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


class EncoderLayer(nn.Module):
    """A transformer encoder layer written out op by op (PyTorch's own layer
    and nn.MultiheadAttention take a fused fast path in eval mode, which the
    flop count cannot see): multi-head self-attention and a GELU feed-forward,
    each with a residual and a LayerNorm, after (post-norm) or before it."""

    def __init__(self, dim, heads, ff, norm_first):
        super().__init__()
        self.heads = heads
        self.norm_first = norm_first
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, ff), nn.GELU(), nn.Linear(ff, dim))

    def attention(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5, -1)
        return self.proj((a @ v).transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        if self.norm_first:
            x = x + self.attention(self.norm1(x))
            return x + self.ff(self.norm2(x))
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.ff(x))


class TransformerEncoder(nn.Sequential):
    """Post-norm encoder layers (BERT style)."""

    def __init__(self, dim=64, heads=4, ff=128, depth=2):
        super().__init__(*[EncoderLayer(dim, heads, ff, False) for _ in range(depth)])


class ViTTiny(nn.Module):
    """Vision transformer: patch embedding, class token, pre-norm layers, head."""

    def __init__(self, image=32, patch=4, dim=64, heads=4, ff=128, depth=2, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        tokens = (image // patch) ** 2 + 1
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, tokens, dim) * 0.02)
        self.encoder = nn.Sequential(*[EncoderLayer(dim, heads, ff, True) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        t = self.embed(x).flatten(2).transpose(1, 2)
        t = torch.cat([self.cls.expand(t.shape[0], -1, -1), t], 1) + self.pos
        return self.head(self.norm(self.encoder(t))[:, 0])


class Recurrent(nn.Module):
    """A 2-layer LSTM or GRU over (steps, 1, features), a linear head on the last step."""

    def __init__(self, cell, features=32, hidden=64, classes=10):
        super().__init__()
        self.rnn = cell(features, hidden, num_layers=2)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[-1])


class AttentionSeqFirst(nn.Module):
    """nn.TransformerEncoder as users write it, with a causal mask (-inf above
    the diagonal): nn.MultiheadAttention exports its projections as MatMuls of
    [tokens, 1, dim] by one weight. The mask also keeps eager PyTorch off its
    fused fast path, so the reference runs the ops the flop count sees."""

    def __init__(self, dim=64, heads=4, ff=128, depth=2, tokens=24):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, heads, ff, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(tokens))

    def forward(self, x):
        return self.encoder(x, mask=self.causal)


class PointNetSmall(nn.Module):
    """A shared per-point MLP, then max and mean over the points (reductions
    over the last axis), then a classifier."""

    def __init__(self, classes=10):
        super().__init__()
        widths = [3, 32, 64, 256]
        self.mlp = nn.Sequential(*[layer for cin, cout in zip(widths, widths[1:]) for layer in
                                   (nn.Conv1d(cin, cout, 1), nn.BatchNorm1d(cout), nn.ReLU())])
        self.head = nn.Sequential(nn.Linear(512, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x):
        f = self.mlp(x)
        return self.head(torch.cat([f.max(2)[0], f.mean(2)], 1))


class OddConvs(nn.Module):
    """Convolutions off the common path: an even kernel, 1x7 and 7x1,
    ConvTranspose with groups and output_padding, dilated
    ConvTranspose at stride 1 and 2, a grouped strided Conv."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(16, 32, 4, padding=1)
        self.c2 = nn.Conv2d(32, 32, (1, 7), padding=(0, 3))
        self.c3 = nn.Conv2d(32, 32, (7, 1), padding=(3, 0))
        self.t1 = nn.ConvTranspose2d(32, 32, 3, 2, 1, output_padding=1, groups=4)
        self.t2 = nn.ConvTranspose2d(32, 16, 3, 1, 2, dilation=2)
        self.t3 = nn.ConvTranspose2d(16, 16, 3, 2, 1, output_padding=1, dilation=2)
        self.c4 = nn.Conv2d(16, 8, 3, stride=2, padding=1, groups=2)

    def forward(self, x):
        x = torch.relu(self.c1(x))
        x = torch.relu(self.t1(self.c3(self.c2(x))))
        return self.c4(self.t3(self.t2(x)))


class AudioM5(nn.Module):
    """M5 raw-audio classifier: a Conv1d of 80 taps at stride 4 on one
    channel, BatchNorm1d, MaxPool1d, a mean over time."""

    def __init__(self, c=32, classes=35):
        super().__init__()
        layers, cin = [], 1
        for cout, k, s in [(c, 80, 4), (c, 3, 1), (2 * c, 3, 1), (2 * c, 3, 1)]:
            layers += [nn.Conv1d(cin, cout, k, s), nn.BatchNorm1d(cout), nn.ReLU(), nn.MaxPool1d(4)]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(2 * c, classes)

    def forward(self, x):
        return self.fc(self.features(x).mean(-1))


class Wav2VecFeatures(nn.Module):
    """wav2vec 2.0's feature encoder: strided Conv1d without bias,
    GroupNorm of one channel a group, GELU, then LayerNorm and a
    projection over the frames."""

    def __init__(self, c=64, dim=128):
        super().__init__()
        layers = [nn.Conv1d(1, c, 10, 5, bias=False), nn.GroupNorm(c, c), nn.GELU()]
        for k, s in [(3, 2)] * 4 + [(2, 2)] * 2:
            layers += [nn.Conv1d(c, c, k, s, bias=False), nn.GELU()]
        self.conv = nn.Sequential(*layers)
        self.norm = nn.LayerNorm(c)
        self.proj = nn.Linear(c, dim)

    def forward(self, x):
        return self.proj(self.norm(self.conv(x).transpose(1, 2)))


class StyleTransfer(nn.Module):
    """Fast style transfer: reflection padding, affine InstanceNorm,
    residual blocks, nearest-neighbour upsampling."""

    def __init__(self, c=8, blocks=2):
        super().__init__()

        def conv(cin, cout, k, stride=1, relu=True):
            layers = [nn.ReflectionPad2d(k // 2), nn.Conv2d(cin, cout, k, stride),
                      nn.InstanceNorm2d(cout, affine=True)]
            return nn.Sequential(*layers, nn.ReLU()) if relu else nn.Sequential(*layers)

        self.down = nn.Sequential(conv(3, c, 9), conv(c, 2 * c, 3, 2), conv(2 * c, 4 * c, 3, 2))
        self.blocks = nn.ModuleList(
            nn.Sequential(conv(4 * c, 4 * c, 3), conv(4 * c, 4 * c, 3, relu=False))
            for _ in range(blocks))
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), conv(4 * c, 2 * c, 3),
                                nn.Upsample(scale_factor=2), conv(2 * c, c, 3),
                                nn.ReflectionPad2d(4), nn.Conv2d(c, 3, 9))

    def forward(self, x):
        x = self.down(x)
        for block in self.blocks:
            x = x + block(x)
        return self.up(x)


class ESPCN(nn.Module):
    """Super-resolution by 3: Tanh Convs, then PixelShuffle (DepthToSpace)."""

    def __init__(self, scale=3):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 64, 5, padding=2), nn.Tanh(),
                                 nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(),
                                 nn.Conv2d(32, scale * scale, 3, padding=1),
                                 nn.PixelShuffle(scale))

    def forward(self, x):
        return self.net(x)


class ConformerConv(nn.Module):
    """Conformer's convolution module, twice, on (1, frames, dim): LayerNorm,
    a pointwise Conv1d and GLU, a depthwise Conv1d of 31 taps, BatchNorm1d,
    SiLU, a pointwise Conv1d, a residual Add."""

    def __init__(self, dim=64, blocks=2):
        super().__init__()
        self.blocks = nn.ModuleList(nn.ModuleDict(dict(
            norm=nn.LayerNorm(dim), expand=nn.Conv1d(dim, 2 * dim, 1),
            depthwise=nn.Conv1d(dim, dim, 31, padding=15, groups=dim),
            bn=nn.BatchNorm1d(dim), project=nn.Conv1d(dim, dim, 1))) for _ in range(blocks))

    def forward(self, x):
        for b in self.blocks:
            y = nn.functional.glu(b["expand"](b["norm"](x).transpose(1, 2)), dim=1)
            y = b["project"](nn.functional.silu(b["bn"](b["depthwise"](y))))
            x = x + y.transpose(1, 2)
        return x


class Video3D(nn.Module):
    """An R3D-style video classifier: Conv3d (a 3x7x7 stem at spatial
    stride 2, 3x3x3 Convs), BatchNorm3d, a global 3-D average pool."""

    def __init__(self, c=16, classes=10):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv3d(3, c, (3, 7, 7), (1, 2, 2), (1, 3, 3)), nn.BatchNorm3d(c), nn.ReLU(),
            nn.Conv3d(c, c, 3, 1, 1), nn.BatchNorm3d(c), nn.ReLU(),
            nn.Conv3d(c, 2 * c, 3, 2, 1), nn.BatchNorm3d(2 * c), nn.ReLU(),
            nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(2 * c, classes))

    def forward(self, x):
        return self.net(x)


def _conv_silu(cin, cout, k=1, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.SiLU())


class _CSPBlock(nn.Module):
    """YOLOv5's C3: two 1x1 branches, a bottleneck with a residual on one,
    a Concat and a 1x1."""

    def __init__(self, c):
        super().__init__()
        self.a, self.b = _conv_silu(c, c // 2), _conv_silu(c, c // 2)
        self.m = nn.Sequential(_conv_silu(c // 2, c // 2), _conv_silu(c // 2, c // 2, 3))
        self.out = _conv_silu(c, c)

    def forward(self, x):
        a = self.a(x)
        return self.out(torch.cat([a + self.m(a), self.b(x)], 1))


class _SPPF(nn.Module):
    """Spatial pyramid pooling, fast: three chained 5x5 MaxPools of stride 1."""

    def __init__(self, c):
        super().__init__()
        self.a, self.out = _conv_silu(c, c // 2), _conv_silu(2 * c, c)
        self.pool = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.a(x)
        y1 = self.pool(x)
        y2 = self.pool(y1)
        return self.out(torch.cat([x, y1, y2, self.pool(y2)], 1))


class YoloSmall(nn.Module):
    """A YOLOv5-like detector, narrow: a 6x6 stride-2 stem, SiLU Conv
    blocks, C3, SPPF, a nearest upsampling Concat'd with the stride-16
    features, a 1x1 head of 3 anchors x (5 + 3 classes)."""

    def __init__(self, w=4):
        super().__init__()
        self.stride8 = nn.Sequential(_conv_silu(3, w, 6, 2), _conv_silu(w, 2 * w, 3, 2),
                                     _CSPBlock(2 * w), _conv_silu(2 * w, 4 * w, 3, 2),
                                     _CSPBlock(4 * w))
        self.stride16 = nn.Sequential(_conv_silu(4 * w, 8 * w, 3, 2), _CSPBlock(8 * w))
        self.stride32 = nn.Sequential(_conv_silu(8 * w, 16 * w, 3, 2), _CSPBlock(16 * w),
                                      _SPPF(16 * w), _conv_silu(16 * w, 8 * w))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Sequential(_CSPBlock(16 * w), nn.Conv2d(16 * w, 24, 1))

    def forward(self, x):
        s16 = self.stride16(self.stride8(x))
        return self.head(torch.cat([self.up(self.stride32(s16)), s16], 1))


class DCGANSmall(nn.Module):
    """DCGAN's generator, narrowed: from a 1x32x1x1 code, ConvTransposes of
    4x4 at stride 2, pad 1 (each output phase its own Conv), one of 3x3 at
    stride 2 with output padding, BatchNorm, ReLU, Tanh."""

    def __init__(self, nz=32, ngf=16):
        super().__init__()
        layers, cin = [], nz
        for cout, k, s, p, op in [(4 * ngf, 4, 1, 0, 0), (2 * ngf, 4, 2, 1, 0),
                                  (ngf, 4, 2, 1, 0), (ngf, 3, 2, 1, 1)]:
            layers += [nn.ConvTranspose2d(cin, cout, k, s, p, output_padding=op, bias=False),
                       nn.BatchNorm2d(cout), nn.ReLU()]
            cin = cout
        layers += [nn.ConvTranspose2d(cin, 3, 4, 2, 1, bias=False), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class DilatedContext(nn.Module):
    """A context module of dilated 3x3 Convs (Yu and Koltun), narrowed to 16
    channels on 32x32: dilation 2 runs undilated over its 2x2 sub-grids as a
    batch (16x16 outputs each), dilations 4 and 8 stay dilated; a 1x1 Conv
    to 8 channels."""

    def __init__(self, c=16):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(c, c, 3, padding=d, dilation=d) for d in (1, 2, 4, 8, 1))
        self.head = nn.Conv2d(c, 8, 1)

    def forward(self, x):
        for conv in self.convs:
            x = torch.relu(conv(x))
        return self.head(x)


class VocoderSmall(nn.Module):
    """A HiFi-GAN-like vocoder, narrowed: from 16 mel bins of 16 frames,
    ConvTranspose1d upsampling by 8 (kernel 16) and by 2 (kernel 4), each
    followed by a residual block of dilated Conv1d (dilations 1 and 3) with
    LeakyReLU, then a Conv1d to one channel and Tanh."""

    def __init__(self, mels=16, c=64):
        super().__init__()
        self.pre = nn.Conv1d(mels, c, 7, padding=3)
        self.ups, self.res = nn.ModuleList(), nn.ModuleList()
        for u, k in [(8, 16), (2, 4)]:
            self.ups.append(nn.ConvTranspose1d(c, c // 2, k, u, (k - u) // 2))
            c //= 2
            self.res.append(nn.ModuleList(nn.Conv1d(c, c, 3, padding=d, dilation=d) for d in (1, 3)))
        self.post = nn.Conv1d(c, 1, 7, padding=3)

    def forward(self, x):
        x = self.pre(x)
        for up, res in zip(self.ups, self.res):
            x = up(nn.functional.leaky_relu(x, 0.1))
            for conv in res:
                x = x + conv(nn.functional.leaky_relu(x, 0.1))
        return torch.tanh(self.post(nn.functional.leaky_relu(x, 0.1)))


class UNet3DSmall(nn.Module):
    """A 3-D U-Net of two levels (8 and 16 channels) on 1x1x8x16x16: Conv3d,
    BatchNorm3d, MaxPool3d, a ConvTranspose3d of 2x2x2 at stride 2, a skip
    Concat."""

    def __init__(self, c=8):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1), nn.BatchNorm3d(cout), nn.ReLU(),
                                 nn.Conv3d(cout, cout, 3, padding=1), nn.BatchNorm3d(cout), nn.ReLU())

        self.down, self.bottom = block(1, c), block(c, 2 * c)
        self.up = nn.ConvTranspose3d(2 * c, c, 2, 2)
        self.merge = block(2 * c, c)
        self.head = nn.Conv3d(c, 2, 1)

    def forward(self, x):
        skip = self.down(x)
        x = self.up(self.bottom(nn.functional.max_pool3d(skip, 2)))
        return self.head(self.merge(torch.cat([x, skip], 1)))


class LrnNet(nn.Module):
    """An AlexNet-style classifier on 1x3x32x32: Convs, LocalResponseNorm
    (which PyTorch exports with an If on the input's rank, a condition kiln
    folds at import), overlapping 3x3 MaxPools of stride 2."""

    def __init__(self, c=32, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, c, 5, padding=2), nn.ReLU(), nn.LocalResponseNorm(5, alpha=1.0),
            nn.MaxPool2d(3, 2),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(),
            nn.LocalResponseNorm(3, alpha=0.5, beta=0.5, k=2.0), nn.MaxPool2d(3, 2))
        self.head = nn.Linear(2 * c * 7 * 7, classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def _torchvision(name, **kwargs):
    import torchvision
    return getattr(torchvision.models, name)(weights=None, **kwargs)


class Segmentation(nn.Module):
    """A torchvision segmentation model's "out" map (the model returns a dict)."""

    def __init__(self, name, **kwargs):
        super().__init__()
        import torchvision
        self.model = getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, **kwargs)

    def forward(self, x):
        return self.model(x)["out"]


# name -> (constructor, input shape, opset)
SMALL = {
    "unet_small": (UNetSmall, (1, 3, 64, 64), 11),
    "transformer_encoder": (TransformerEncoder, (1, 16, 64), 17),
    "vit_tiny": (ViTTiny, (1, 3, 32, 32), 15),
    "lstm": (lambda: Recurrent(nn.LSTM), (16, 1, 32), 14),
    "gru": (lambda: Recurrent(nn.GRU), (16, 1, 32), 12),
    "attention_seqfirst": (AttentionSeqFirst, (1, 24, 64), 14),
    "pointnet_small": (PointNetSmall, (1, 3, 256), 13),
    "odd_convs": (OddConvs, (1, 16, 20, 20), 13),
    "audio_m5": (AudioM5, (1, 1, 4000), 11),
    "wav2vec_features": (Wav2VecFeatures, (1, 1, 4000), 12),
    "style_transfer": (StyleTransfer, (1, 3, 64, 64), 16),
    "espcn": (ESPCN, (1, 1, 64, 64), 14),
    "conformer_conv": (ConformerConv, (1, 50, 64), 17),
    "video_3d": (Video3D, (1, 3, 4, 32, 32), 13),
    "yolo_small": (YoloSmall, (1, 3, 128, 128), 15),
    "dcgan_small": (DCGANSmall, (1, 32, 1, 1), 13),
    "dilated_context": (DilatedContext, (1, 16, 32, 32), 12),
    "vocoder_small": (VocoderSmall, (1, 16, 16), 14),
    "unet3d_small": (UNet3DSmall, (1, 1, 8, 16, 16), 16),
    "lrn_net": (LrnNet, (1, 3, 32, 32), 13),
}
_IMAGE = (1, 3, 224, 224)
LARGE = {
    "squeezenet1_1": (lambda: _torchvision("squeezenet1_1"), _IMAGE, 11),
    "shufflenet_v2_x1_0": (lambda: _torchvision("shufflenet_v2_x1_0"), _IMAGE, 12),
    "mobilenet_v3_small": (lambda: _torchvision("mobilenet_v3_small"), _IMAGE, 13),
    "mobilenet_v3_large": (lambda: _torchvision("mobilenet_v3_large"), _IMAGE, 14),
    "efficientnet_b0": (lambda: _torchvision("efficientnet_b0"), _IMAGE, 15),
    "mnasnet1_0": (lambda: _torchvision("mnasnet1_0"), _IMAGE, 16),
    "regnet_x_400mf": (lambda: _torchvision("regnet_x_400mf"), _IMAGE, 17),
    "regnet_y_400mf": (lambda: _torchvision("regnet_y_400mf"), _IMAGE, 13),
    "densenet121": (lambda: _torchvision("densenet121"), _IMAGE, 14),
    "googlenet": (lambda: _torchvision("googlenet", aux_logits=False, init_weights=True),
                  _IMAGE, 15),
    "resnet50": (lambda: _torchvision("resnet50"), _IMAGE, 16),
    "convnext_tiny": (lambda: _torchvision("convnext_tiny"), _IMAGE, 17),
    "resnext50_32x4d": (lambda: _torchvision("resnext50_32x4d"), _IMAGE, 13),
    "efficientnet_v2_s": (lambda: _torchvision("efficientnet_v2_s"), _IMAGE, 15),
    "inception_v3": (lambda: _torchvision("inception_v3", aux_logits=False, init_weights=True),
                     _IMAGE, 13),
    "swin_t": (lambda: _torchvision("swin_t"), _IMAGE, 17),
    "deeplabv3_mobilenet_v3_large": (
        lambda: Segmentation("deeplabv3_mobilenet_v3_large", aux_loss=False), _IMAGE, 12),
}
SUITE = {**SMALL, **LARGE}


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="Generate kiln's model suite (seeded random weights).")
    ap.add_argument("--out", default=here, help="output folder (default: this script's folder)")
    ap.add_argument("--models", default=",".join(SMALL),
                    help="comma-separated models (default: %(default)s); one of: "
                    + ", ".join(SUITE))
    ap.add_argument("--large", action="store_true", help="the large (torchvision) models")
    ap.add_argument("--seed", type=int, default=1234, help="random seed (default: %(default)s)")
    args = ap.parse_args(argv)

    names = list(LARGE) if args.large else [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in SUITE]
    if unknown:
        ap.error(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(SUITE)}")
    os.makedirs(args.out, exist_ok=True)
    shapes = {name: (ctor, shape) for name, (ctor, shape, _) in SUITE.items()}
    generated = {name: regenerate.generate(name, args.seed, args.out, shapes, SUITE[name][2])
                 for name in names}
    regenerate.merge_manifest(args.out, generated)
    return 0


if __name__ == "__main__":
    sys.exit(main())

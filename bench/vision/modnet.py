"""MODNet (Ke et al., "MODNet: Real-Time Trimap-Free Portrait Matting via Objective
Decomposition", AAAI 2022) at inference, written for this benchmark from the paper's
description: a MobileNetV2 encoder (width 1.0), a low-resolution semantic branch (SE block on
the 1/32 features, two 5x5 convolutions at 1/16 and 1/8), a high-resolution detail branch fed
by the image at 1/2 and 1/4 and by the 1/2 and 1/4 encoder features, and a fusion branch that
returns the alpha matte. Every convolution but the heads is conv + IBNorm + ReLU, IBNorm
being BatchNorm on the first half of the channels and InstanceNorm on the second. The
semantic and detail heads only feed training losses, so inference runs without them.

`explicit_instance_norm=True` computes the InstanceNorm half as mean / variance over H, W
with elementwise ops instead of nn.InstanceNorm2d (same numbers): the form a deployment
writes when its exporter has no instance-norm kernel.
"""

import torch
from torch import nn
import torch.nn.functional as F


def _up(x, factor):
    return F.interpolate(x, scale_factor=factor, mode="bilinear", align_corners=False)


class _InstanceNormHW(nn.Module):
    """InstanceNorm2d without affine parameters, as mean / biased variance over H and W."""

    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        mean = x.mean(dim=(2, 3), keepdim=True)
        centered = x - mean
        var = (centered * centered).mean(dim=(2, 3), keepdim=True)
        return centered * torch.rsqrt(var + self.eps)


class IBNorm(nn.Module):
    def __init__(self, channels, explicit_instance_norm):
        super().__init__()
        self.bn_channels = channels // 2
        self.bn = nn.BatchNorm2d(self.bn_channels)
        self.inorm = (_InstanceNormHW() if explicit_instance_norm
                      else nn.InstanceNorm2d(channels - self.bn_channels, affine=False))

    def forward(self, x):
        return torch.cat([self.bn(x[:, :self.bn_channels]), self.inorm(x[:, self.bn_channels:])], 1)


class ConvIBNormRelu(nn.Module):
    def __init__(self, cin, cout, k, stride=1, ibn=True, relu=True, explicit_instance_norm=False):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2)
        self.norm = IBNorm(cout, explicit_instance_norm) if ibn else None
        self.relu = relu

    def forward(self, x):
        x = self.conv(x)
        if self.norm is not None:
            x = self.norm(x)
        return F.relu(x) if self.relu else x


class _ConvBnRelu6(nn.Sequential):
    def __init__(self, cin, cout, k=3, stride=1, groups=1):
        super().__init__(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU6())


class _InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = [_ConvBnRelu6(cin, hidden, 1)] if expand != 1 else []
        layers += [_ConvBnRelu6(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.block(x) if self.residual else self.block(x)


class MobileNetV2Encoder(nn.Module):
    """MobileNetV2 (width 1.0) features, returning the 1/2, 1/4, 1/8, 1/16 and 1/32 maps
    (16, 24, 32, 96 and 1280 channels), split after the same blocks as MODNet's backbone."""

    # (expansion, channels, repeats, first stride), the table of the MobileNetV2 paper
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1)]
    SPLITS = (2, 4, 7, 14, 19)  # end of each returned stage in `features`

    def __init__(self):
        super().__init__()
        feats = [_ConvBnRelu6(3, 32, 3, 2)]
        cin = 32
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                feats.append(_InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        feats.append(_ConvBnRelu6(cin, 1280, 1))
        self.features = nn.ModuleList(feats)

    def forward(self, x):
        outs, start = [], 0
        for end in self.SPLITS:
            for f in self.features[start:end]:
                x = f(x)
            outs.append(x)
            start = end
        return outs


class _SEBlock(nn.Module):
    """Squeeze-and-excitation as MODNet has it: global average pool (nn.AdaptiveAvgPool2d, which
    exports as a keepdim mean), two linear layers, a sigmoid gate per channel."""

    def __init__(self, channels, reduction=4):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Linear(channels, channels // reduction, bias=False)
        self.fc2 = nn.Linear(channels // reduction, channels, bias=False)

    def forward(self, x):
        w = torch.sigmoid(self.fc2(F.relu(self.fc1(self.pool(x).flatten(1)))))
        return x * w[:, :, None, None]


class MODNet(nn.Module):
    """img [N,3,H,W] in [-1,1] (H, W multiples of 32) -> alpha matte [N,1,H,W] in (0,1)."""

    def __init__(self, hr=32, explicit_instance_norm=False):
        super().__init__()

        def c(cin, cout, k, stride=1, ibn=True, relu=True):
            return ConvIBNormRelu(cin, cout, k, stride, ibn, relu, explicit_instance_norm)

        self.backbone = MobileNetV2Encoder()
        # low-resolution (semantic) branch
        self.se = _SEBlock(1280)
        self.lr16x = c(1280, 96, 5)
        self.lr8x = c(96, 32, 5)
        # high-resolution (detail) branch
        self.tohr_enc2x = c(16, hr, 1)
        self.enc2x = c(hr + 3, hr, 3, stride=2)
        self.tohr_enc4x = c(24, hr, 1)
        self.enc4x = c(2 * hr, 2 * hr, 3)
        self.hr4x = nn.Sequential(c(3 * hr + 3, 2 * hr, 3), c(2 * hr, 2 * hr, 3), c(2 * hr, hr, 3))
        self.hr2x = nn.Sequential(c(2 * hr, 2 * hr, 3), c(2 * hr, hr, 3), c(hr, hr, 3), c(hr, hr, 3))
        # fusion branch
        self.f_lr4x = c(32, hr, 5)
        self.f_2x = c(2 * hr, hr, 3)
        self.f_out = nn.Sequential(c(hr + 3, hr // 2, 3), c(hr // 2, 1, 1, ibn=False, relu=False))

    def forward(self, img):
        enc2x, enc4x, _, _, enc32x = self.backbone(img)
        # semantic branch (its 1-channel head only serves a training loss)
        lr8x = self.lr8x(_up(self.lr16x(_up(self.se(enc32x), 2)), 2))
        # detail branch
        img2x, img4x = _up(img, 0.5), _up(img, 0.25)
        enc2x = self.tohr_enc2x(enc2x)
        hr4x = self.enc2x(torch.cat([img2x, enc2x], 1))
        hr4x = self.enc4x(torch.cat([hr4x, self.tohr_enc4x(enc4x)], 1))
        hr4x = self.hr4x(torch.cat([hr4x, _up(lr8x, 2), img4x], 1))
        hr2x = self.hr2x(torch.cat([_up(hr4x, 2), enc2x], 1))
        # fusion
        lr2x = _up(self.f_lr4x(_up(lr8x, 2)), 2)
        f2x = self.f_2x(torch.cat([lr2x, hr2x], 1))
        return torch.sigmoid(self.f_out(torch.cat([_up(f2x, 2), img], 1)))


def calibrate_batchnorm(model, x):
    """Sets every BatchNorm's running statistics to those of `x`'s activations (one forward
    pass with only the BatchNorms in training mode, cumulative average), as training leaves
    them: with PyTorch's default statistics (mean 0, variance 1) a random MobileNetV2 shrinks
    its activations about threefold per layer, to ~1e-7 at 1/32, where the InstanceNorms
    then amplify fp32 rounding into the matte."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
        bn.train()
    with torch.no_grad():
        model(x)
    for bn in bns:
        bn.eval()
    return model

"""The benchmark's model architectures at their real input sizes, with random weights.

Each builder returns (module in eval mode, example input, description). The weights come
from PyTorch's default initialisation under a fixed seed, so the same name always builds
the same network: export.py and torch_bench.py each call build(name) and get identical
weights without passing files between them.
"""

import torch
from torch import nn
import torch.nn.functional as F


def _eager_attention(*configs):
    """Attention as matmul + softmax + matmul ("eager") instead of transformers' SDPA path,
    whose export leaves any(-1) and mul.Scalar on the CPU between Vulkan delegates (a
    program of 2 + 3 * layers delegates, each boundary a GPU round trip). The eager form
    lowers into one delegate. The *_sdpa models keep the default for comparison."""
    for c in configs:
        c._attn_implementation = "eager"
        # Composite configs (SAM2, D-FINE) hold sub-configs, each read by its own modules.
        for key in getattr(c, "sub_configs", {}) or {}:
            sub = getattr(c, key, None)
            if sub is not None and sub is not c:
                _eager_attention(sub)


def _mobilenet_v3_small():
    import torchvision
    m = torchvision.models.mobilenet_v3_small(weights=None)
    return m, torch.randn(1, 3, 224, 224), "torchvision mobilenet_v3_small, 1x3x224x224 -> 1x1000"


class _DenseBlock(nn.Module):
    """ESRGAN-slim's residual dense block with C=1: conv3x3 G0->G + ReLU, concat, conv1x1 LFF, add."""

    def __init__(self, g0, g):
        super().__init__()
        self.conv = nn.Conv2d(g0, g, 3, padding=1)
        self.lff = nn.Conv2d(g0 + g, g0, 1)

    def forward(self, x):
        return self.lff(torch.cat([x, F.relu(self.conv(x))], 1)) + x


class EsrganSlim(nn.Module):
    """RDN of @upscalerjs/esrgan-slim (C=1, D=2, G=4, G0=64), as the shared fixture
    pretrained/esrgan_slim_x4 describes it: input RGB 0..255, x`scale` output."""

    def __init__(self, scale=4, g0=64, g=4, d=2):
        super().__init__()
        self.f_m1 = nn.Conv2d(3, g0, 3, padding=1)
        self.f_0 = nn.Conv2d(g0, g0, 3, padding=1)
        self.blocks = nn.ModuleList(_DenseBlock(g0, g) for _ in range(d))
        self.gff1 = nn.Conv2d(g0 * d, g0, 1)
        self.gff2 = nn.Conv2d(g0, g0, 3, padding=1)
        self.up1 = nn.Conv2d(g0, 64, 5, padding=2)
        self.up2 = nn.Conv2d(64, 32, 3, padding=1)
        self.up3 = nn.Conv2d(32, 3 * scale * scale, 3, padding=1)
        self.out = nn.Conv2d(3 * scale * scale, 3, 3, padding=1)
        self.scale = scale

    def forward(self, x):
        f_m1 = self.f_m1(x)
        h = self.f_0(f_m1)
        outs = []
        for b in self.blocks:
            h = b(h)
            outs.append(h)
        h = self.gff2(self.gff1(torch.cat(outs, 1))) + f_m1
        h = F.relu(self.up1(h))
        h = F.relu(self.up2(h))
        h = F.interpolate(self.up3(h), scale_factor=self.scale, mode="nearest")
        return self.out(h)


def _esrgan_slim(size):
    def build():
        x = torch.rand(1, 3, size, size) * 255
        return EsrganSlim(), x, f"ESRGAN-slim x4 (RDN C=1 D=2 G=4 G0=64), 1x3x{size}x{size} -> 1x3x{4 * size}x{4 * size}"
    return build


def _depth_anything_v2_small(eager):
    return lambda: _depth_anything(eager)


def _depth_anything(eager):
    from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation, Dinov2Config
    backbone = Dinov2Config(hidden_size=384, num_hidden_layers=12, num_attention_heads=6, mlp_ratio=4,
                            image_size=518, patch_size=14, out_indices=[3, 6, 9, 12], reshape_hidden_states=False)
    cfg = DepthAnythingConfig(backbone_config=backbone, patch_size=14, reassemble_hidden_size=384,
                              reassemble_factors=[4, 2, 1, 0.5], neck_hidden_sizes=[48, 96, 192, 384],
                              fusion_hidden_size=64, head_hidden_size=32, head_in_index=-1,
                              depth_estimation_type="relative")
    if eager:
        _eager_attention(cfg, backbone)
    m = DepthAnythingForDepthEstimation(cfg)

    class Wrap(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(pixel_values=x).predicted_depth

    return Wrap(m), torch.randn(1, 3, 518, 518), ("transformers DepthAnythingForDepthEstimation in the Depth Anything V2 "
                                                   "Small shape (DINOv2 ViT-S/14: 384 wide, 12 layers, 6 heads; neck "
                                                   "[48,96,192,384], fusion 64), 1x3x518x518 -> 1x518x518, "
                                                   + ("eager attention" if eager else "SDPA attention"))


class _ResidualDenseBlock(nn.Module):
    def __init__(self, nf=64, gc=32):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(nf + i * gc, gc if i < 4 else nf, 3, padding=1) for i in range(5))
        for c in self.convs:  # basicsr's default_init_weights(scale=0.1) keeps 23 blocks well scaled
            c.weight.data.mul_(0.1)

    def forward(self, x):
        feats = [x]
        for i, c in enumerate(self.convs):
            y = c(torch.cat(feats, 1))
            if i < 4:
                feats.append(F.leaky_relu(y, 0.2))
        return y * 0.2 + x


class _RRDB(nn.Module):
    def __init__(self, nf=64, gc=32):
        super().__init__()
        self.rdbs = nn.Sequential(*(_ResidualDenseBlock(nf, gc) for _ in range(3)))

    def forward(self, x):
        return self.rdbs(x) * 0.2 + x


class RRDBNet(nn.Module):
    """Real-ESRGAN's RRDBNet x4 in basicsr's layout: 64 features, 23 RRDB blocks, growth 32."""

    def __init__(self, nf=64, nb=23, gc=32):
        super().__init__()
        self.conv_first = nn.Conv2d(3, nf, 3, padding=1)
        self.body = nn.Sequential(*(_RRDB(nf, gc) for _ in range(nb)))
        self.conv_body = nn.Conv2d(nf, nf, 3, padding=1)
        self.conv_up1 = nn.Conv2d(nf, nf, 3, padding=1)
        self.conv_up2 = nn.Conv2d(nf, nf, 3, padding=1)
        self.conv_hr = nn.Conv2d(nf, nf, 3, padding=1)
        self.conv_last = nn.Conv2d(nf, 3, 3, padding=1)

    def forward(self, x):
        feat = self.conv_first(x)
        feat = feat + self.conv_body(self.body(feat))
        feat = F.leaky_relu(self.conv_up1(F.interpolate(feat, scale_factor=2, mode="nearest")), 0.2)
        feat = F.leaky_relu(self.conv_up2(F.interpolate(feat, scale_factor=2, mode="nearest")), 0.2)
        return self.conv_last(F.leaky_relu(self.conv_hr(feat), 0.2))


def _realesrgan_tile():
    return RRDBNet(), torch.rand(1, 3, 64, 64), "Real-ESRGAN RRDBNet x4 (64 ch, 23 RRDB, growth 32) on a 64x64 tile -> 1x3x256x256"


def _whisper_base_encoder(eager):
    def build():
        return _whisper_base(eager)
    return build


def _whisper_base(eager):
    from transformers import WhisperConfig, WhisperForConditionalGeneration
    cfg = WhisperConfig(vocab_size=51865, d_model=512, encoder_layers=6, encoder_attention_heads=8,
                        decoder_layers=6, decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048,
                        num_mel_bins=80, max_source_positions=1500, max_target_positions=448)
    if eager:
        _eager_attention(cfg)
    enc = WhisperForConditionalGeneration(cfg).model.encoder

    class Wrap(nn.Module):
        def __init__(self, enc):
            super().__init__()
            self.enc = enc

        def forward(self, x):
            return self.enc(input_features=x).last_hidden_state

    return Wrap(enc), torch.rand(1, 80, 3000) * 2 - 1, ("transformers Whisper encoder in the whisper-base shape (d_model 512, "
                                                         "6 layers, 8 heads, ffn 2048), 30 s: 1x80x3000 -> 1x1500x512, "
                                                         + ("eager attention" if eager else "SDPA attention"))


def _modnet(explicit_instance_norm):
    def build():
        from modnet import MODNet, calibrate_batchnorm
        m, x = MODNet(explicit_instance_norm=explicit_instance_norm), torch.rand(1, 3, 512, 512) * 2 - 1
        return calibrate_batchnorm(m, x), x, (
            "MODNet (MobileNetV2 encoder, LR / HR / fusion branches, IBNorm, hr 32; modnet.py; BatchNorm statistics "
            "calibrated on the input), 1x3x512x512 in [-1,1] -> alpha 1x1x512x512, InstanceNorm half of IBNorm as "
            + ("mean / variance ops" if explicit_instance_norm else "nn.InstanceNorm2d"))
    return build


def _hf(fn_name):
    def build():
        import sam2_dfine
        return getattr(sam2_dfine, fn_name)(_eager_attention)
    return build


BUILDERS = {
    "mobilenet_v3_small": _mobilenet_v3_small,
    "esrgan_slim_x4_64": _esrgan_slim(64),
    "esrgan_slim_x4_128": _esrgan_slim(128),
    "depth_anything_v2_small_518": _depth_anything_v2_small(True),
    "depth_anything_v2_small_518_sdpa": _depth_anything_v2_small(False),
    "realesrgan_x4_tile64": _realesrgan_tile,
    "whisper_base_encoder_30s": _whisper_base_encoder(True),
    "whisper_base_encoder_30s_sdpa": _whisper_base_encoder(False),
    "modnet_512": _modnet(False),
    "modnet_512_in_explicit": _modnet(True),
    "sam2_1_hiera_tiny_encoder_1024": _hf("sam2_encoder"),
    "sam2_1_hiera_tiny_decoder_1click": _hf("sam2_decoder"),
    "dfine_s_640": _hf("dfine_s"),
}

# Exported after ExecuTorch's constant_prop_pass straight away (the transformers models whose
# lowering otherwise fails in the Vulkan FuseBatchNormPass re-trace, ../shared/executorch/README.md;
# it also folds position-embedding interpolation and anchors into constants).
CONSTANT_PROP_FIRST = {"sam2_1_hiera_tiny_encoder_1024", "sam2_1_hiera_tiny_decoder_1click", "dfine_s_640"}

# Outputs whose rows along this dim are a set, in an order the model does not fix: D-FINE's
# logits [1,300,80] and boxes [1,300,4] are its 300 queries in the order of a top-k over
# 8,400 anchor scores, and with random weights neighbouring scores lie closer than fp32
# rounding (eager fp32 and fp64 swap some). The decoder treats the queries alike whatever
# their order (no index enters it), so a swap moves rows and changes nothing else.
# compare.py matches such rows across all outputs at once before it takes differences.
ROWS_AS_SET = {"dfine_s_640": 1}


def build(name):
    """(module in eval mode, example input or tuple of inputs, description) for `name`, same
    weights every call. Outputs are a tensor or a tuple of tensors."""
    torch.manual_seed(0)
    m, x, desc = BUILDERS[name]()
    return m.eval(), x, desc

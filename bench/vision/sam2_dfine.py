"""SAM 2.1 Hiera Tiny and D-FINE S as transformers builds them, random weights, real sizes.

Both come from transformers (5.17 on the H200 machine) with their published configurations:
- Sam2Config() is SAM 2.1 Hiera Tiny (Hiera blocks [1,2,7,2], widths 96..768, heads 1..8,
  windows [8,4,14,7], global blocks 5,7,9; FPN 256; image 1024). Split in two programs as
  SAM 2 is deployed: the image encoder (once per image) and the prompt encoder + mask decoder
  (once per click), whose inputs are the encoder's three embeddings.
- DFineConfig with the D-FINE S settings of transformers' checkpoint converter (HGNetV2 B0
  backbone, hybrid encoder 256 wide with 0.5 expansion and 0.34 depth, 3 decoder layers,
  points [3,6,3], 300 queries, 80 classes) at 640x640.

transformers' own initialisation makes some of these random-weight outputs degenerate (SAM's
encoder, zeroed box heads), so the weights are re-drawn with PyTorch's defaults (_reinit).
"""

import torch
from torch import nn


def _reinit(m):
    """PyTorch's default init for linear, convolution and embedding layers; random affine
    parameters for norms and random BatchNorm statistics, so that no layer is an identity."""
    for mod in m.modules():
        if isinstance(mod, (nn.Linear, nn.Conv1d, nn.Conv2d, nn.ConvTranspose2d, nn.Embedding)):
            mod.reset_parameters()
        elif isinstance(mod, (nn.LayerNorm, nn.GroupNorm, nn.BatchNorm2d)) or (
                "Norm" in type(mod).__name__ and isinstance(getattr(mod, "weight", None), nn.Parameter)):
            with torch.no_grad():
                if isinstance(getattr(mod, "weight", None), nn.Parameter):
                    mod.weight.copy_(1 + 0.1 * torch.randn_like(mod.weight))
                if isinstance(getattr(mod, "bias", None), nn.Parameter):
                    mod.bias.copy_(0.1 * torch.randn_like(mod.bias))
                if isinstance(mod, nn.BatchNorm2d) and mod.running_mean is not None:
                    mod.running_mean.copy_(0.1 * torch.randn_like(mod.running_mean))
                    mod.running_var.copy_(0.5 + torch.rand_like(mod.running_var))


def _eager(model, eager_attention):
    """Eager attention on every sub-config, and through the model's own switch where it has one."""
    eager_attention(model.config)
    if hasattr(model, "set_attn_implementation"):
        try:
            model.set_attn_implementation("eager")
        except Exception:  # noqa: BLE001  (older transformers: the config attribute is what counts)
            pass


def attn_implementations(model):
    """The attention implementation each sub-config ended with (recorded in meta.json)."""
    seen = {}

    def walk(c, path):
        seen[path] = getattr(c, "_attn_implementation", None)
        for key in getattr(c, "sub_configs", {}) or {}:
            sub = getattr(c, key, None)
            if sub is not None and sub is not c:
                walk(sub, f"{path}.{key}")

    walk(model.config, "config")
    return seen


SAM2_IMAGE = 1024
SAM2_CLICK = (400.0, 650.0)  # (x, y) in pixels of the 1024x1024 input


def _sam2_model(eager_attention):
    from transformers import Sam2Config, Sam2Model
    m = Sam2Model(Sam2Config())
    _reinit(m)
    _eager(m, eager_attention)
    return m.eval()


class Sam2ImageEncoder(nn.Module):
    """pixel_values [1,3,1024,1024] -> the three image embeddings: [1,32,256,256] and
    [1,64,128,128] (high-resolution features after the mask decoder's conv_s0 / conv_s1) and
    [1,256,64,64] (FPN output plus the no-memory embedding)."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, pixel_values):
        return tuple(self.m.get_image_embeddings(pixel_values))


class Sam2PromptMaskDecoder(nn.Module):
    """(the three embeddings, input_points [1,1,1,2] float, input_labels [1,1,1] int64) ->
    pred_masks [1,1,3,256,256] (low-resolution mask logits), iou_scores [1,1,3]."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, e0, e1, e2, input_points, input_labels):
        out = self.m(image_embeddings=[e0, e1, e2], input_points=input_points, input_labels=input_labels,
                     multimask_output=True)
        return out.pred_masks, out.iou_scores


def sam2_encoder(eager_attention):
    m = Sam2ImageEncoder(_sam2_model(eager_attention))
    x = torch.randn(1, 3, SAM2_IMAGE, SAM2_IMAGE)
    return m, x, ("transformers Sam2Model.get_image_embeddings, SAM 2.1 Hiera Tiny (Sam2Config defaults: Hiera "
                  "[1,2,7,2] blocks, 96..768 wide, FPN 256), eager attention, 1x3x1024x1024 -> "
                  "[1,32,256,256], [1,64,128,128], [1,256,64,64]")


def sam2_decoder(eager_attention):
    """The same weights as sam2_encoder (same seed, same draws); its inputs are that encoder's
    embeddings of the same image, plus one foreground click."""
    m = _sam2_model(eager_attention)
    x = torch.randn(1, 3, SAM2_IMAGE, SAM2_IMAGE)
    # the embeddings are this program's inputs (written to files, read by every runtime), so
    # where they are computed only changes how long the build takes
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.no_grad():
        e0, e1, e2 = (e.cpu() for e in m.to(dev).get_image_embeddings(x.to(dev)))
    m.cpu()
    points = torch.tensor([[[list(SAM2_CLICK)]]], dtype=torch.float32)
    labels = torch.ones(1, 1, 1, dtype=torch.int64)
    return Sam2PromptMaskDecoder(m), (e0, e1, e2, points, labels), (
        "transformers Sam2Model.forward on precomputed image_embeddings: SAM 2.1 Hiera Tiny prompt encoder + "
        "two-way mask decoder (256 wide, multimask), one foreground click, eager attention -> pred_masks "
        "[1,1,3,256,256], iou_scores [1,1,3]")


class _DetectionOutputs(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, pixel_values):
        out = self.m(pixel_values=pixel_values)
        return out.logits, out.pred_boxes


def dfine_s(eager_attention):
    from transformers import DFineConfig, DFineForObjectDetection
    cfg = DFineConfig()
    cfg.num_labels = 80
    bb = cfg.backbone_config
    # D-FINE S: HGNetV2 B0 (the converter's settings for dfine_s_coco)
    bb.hidden_sizes = [128, 256, 512, 1024]
    bb.layer_type = "basic"
    bb.embedding_size = 32
    bb.stem_channels = [3, 16, 16]
    bb.stage_in_channels = [16, 64, 256, 512]
    bb.stage_mid_channels = [16, 32, 64, 128]
    bb.stage_out_channels = [64, 256, 512, 1024]
    bb.stage_num_blocks = [1, 1, 2, 1]
    bb.stage_downsample = [False, True, True, True]
    bb.stage_light_block = [False, False, True, True]
    bb.stage_kernel_size = [3, 3, 5, 5]
    bb.stage_numb_of_layers = [3, 3, 3, 3]
    bb.use_learnable_affine_block = True
    cfg.hidden_expansion = 0.5
    cfg.depth_mult = 0.34
    cfg.decoder_layers = 3
    cfg.decoder_n_points = [3, 6, 3]
    cfg.encoder_in_channels = [256, 512, 1024]
    m = DFineForObjectDetection(cfg)
    _reinit(m)
    _eager(m, eager_attention)
    return _DetectionOutputs(m.eval()), torch.rand(1, 3, 640, 640), (
        "transformers DFineForObjectDetection, D-FINE S (HGNetV2 B0, hybrid encoder 256, 3 decoder layers, "
        "300 queries, 80 classes), eager attention, 1x3x640x640 in [0,1) -> logits [1,300,80], "
        "pred_boxes [1,300,4]")

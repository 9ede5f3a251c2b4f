"""Export cases for concatenations built in place (src/webgpu/cat_plan.h); imported by
export_ops.py (run on the device machine, see its header).

- cat_dense_block: ESRGAN's ResidualDenseBlock in small (8 features, growth 4, 8x8): five
  3x3 convs with LeakyReLU, each reading the cat of the block input and every output so
  far, then x5 * 0.2 + x. The same x feeds four cats and each cat is the next one's prefix;
  8x8 fp32 planes are 256 bytes, so every channel slice is a legal binding offset.
- cat_edges: the cases that must fall back or share: a cat input that is also a graph
  output, the same input twice in one cat and in two cats, a cat of a cat, and a piece
  whose slice starts 60 bytes in (3x5 planes: not a binding offset on any adapter).
"""

import torch


class DenseBlock(torch.nn.Module):
    def __init__(self, nf=8, gc=4):
        super().__init__()
        g = torch.Generator().manual_seed(21)  # the module is built again for each use: same weights
        self.convs = torch.nn.ModuleList()
        for k in range(5):
            conv = torch.nn.Conv2d(nf + k * gc, gc if k < 4 else nf, 3, 1, 1)
            with torch.no_grad():
                conv.weight.copy_(torch.randn(conv.weight.shape, generator=g) * 0.15)
                conv.bias.copy_(torch.randn(conv.bias.shape, generator=g) * 0.05)
            self.convs.append(conv)
        self.lrelu = torch.nn.LeakyReLU(0.2)

    def forward(self, x):
        x = torch.relu(x)  # the block's input is an intermediate, as in RRDBNet
        feats = [x]
        for conv in self.convs[:4]:
            feats.append(self.lrelu(conv(torch.cat(feats, 1))))
        return self.convs[4](torch.cat(feats, 1)) * 0.2 + x


def cat_edges(a, b):
    r = torch.relu(a)                           # a graph output and a cat input
    inner = torch.cat([r, -a], 1)               # cat of a cat: inner is outer's prefix
    outer = torch.cat([inner, a.abs()], 1)
    pair = torch.cat([a.sin(), a.sin().cos()], 1)
    same = torch.cat([r, r], 1)                 # the same input twice
    odd = torch.cat([torch.relu(b), b.neg()], 1)  # b is [1,1,3,5]: the second slice at 60 bytes
    return r, outer * 2.0, same + pair, odd - 1.0


def add_cat_cases(t):
    """Adds the cat entries to export_ops.op_table()'s table t (own generator, so the
    earlier entries keep their inputs)."""
    g = torch.Generator().manual_seed(15)
    t["cat_dense_block"] = ("ResidualDenseBlock(nf 8, gc 4) on relu(x[1,8,8,8]): 5 convs 3x3 + LeakyReLU(0.2) over growing cats, x5*0.2 + x",
                            DenseBlock, [(torch.randn(1, 8, 8, 8, generator=g),)], (1e-5, 1e-4), False)
    t["cat_edges"] = ("cats of a[1,2,8,8] (output piece, same input twice, cat of a cat) and of b[1,1,3,5] (unaligned slice)",
                      cat_edges, [(torch.randn(1, 2, 8, 8, generator=g), torch.randn(1, 1, 3, 5, generator=g))], (1e-6, 1e-6), True)
    return t

"""The model zoo: builders for `simtscope capture --model workloads/zoo/models.py:NAME`.

Each builder returns (model, inputs) on the GPU, in eval mode. Written without torchvision/transformers
(only torch is needed on the GPU machine). Attention is written as explicit ops with a hand-written
softmax so that Inductor makes Triton kernels for it (no flash-attention library call).
"""
from __future__ import annotations

import math

import torch
from torch import nn
import torch.nn.functional as F

DEV = "cuda"


# ---------------------------------------------------------------------- LeNet-5 (the seed's workload)
class LeNet5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def lenet5_b64_fp32():
    torch.manual_seed(0)
    return LeNet5().to(DEV).eval(), (torch.randn(64, 1, 28, 28, device=DEV),)


# ---------------------------------------------------------------------- MLP
def mlp_b128_fp16():
    torch.manual_seed(1)
    m = nn.Sequential(nn.Linear(784, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 10))
    return m.to(DEV).half().eval(), (torch.randn(128, 784, device=DEV).half(),)


# ---------------------------------------------------------------------- ResNet-18
class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + idt)


class ResNet18(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        chans, layers, cin = [64, 128, 256, 512], [], 64
        for i, c in enumerate(chans):
            s = 1 if i == 0 else 2
            layers.append(nn.Sequential(BasicBlock(cin, c, s), BasicBlock(c, c, 1)))
            cin = c
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def _resnet18(batch):
    torch.manual_seed(2)
    m = ResNet18().to(DEV).half().eval().to(memory_format=torch.channels_last)
    x = torch.randn(batch, 3, 224, 224, device=DEV).half().to(memory_format=torch.channels_last)
    return m, (x,)


def resnet18_b1_224_fp16():
    return _resnet18(1)


def resnet18_b16_224_fp16():
    return _resnet18(16)


# ---------------------------------------------------------------------- transformers
def softmax_lastdim(s):
    e = torch.exp(s - s.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


class Attention(nn.Module):
    def __init__(self, d, heads, causal):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.h, self.causal = heads, causal

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.h, d // self.h).transpose(1, 2) for z in (q, k, v))
        s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d // self.h))
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            s = s.masked_fill(~mask, float("-inf"))
        y = softmax_lastdim(s.float()).to(x.dtype) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, heads, causal, pre_norm):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads, causal)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh" if causal else "none"),
                                 nn.Linear(4 * d, d))
        self.pre = pre_norm

    def forward(self, x):
        if self.pre:                                  # GPT-2
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))
        x = self.ln1(x + self.attn(x))                # BERT (post-norm)
        return self.ln2(x + self.mlp(x))


class GPT2(nn.Module):
    def __init__(self, vocab=50257, ctx=1024, d=768, layers=12, heads=12):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.h = nn.ModuleList(Block(d, heads, True, True) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(pos)
        for blk in self.h:
            x = blk(x)
        return self.ln_f(x)


class BertEncoder(nn.Module):
    def __init__(self, vocab=30522, ctx=512, d=768, layers=12, heads=12):
        super().__init__()
        self.word, self.pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
        self.ln = nn.LayerNorm(d)
        self.layer = nn.ModuleList(Block(d, heads, False, False) for _ in range(layers))

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.ln(self.word(ids) + self.pos(pos))
        for blk in self.layer:
            x = blk(x)
        return x


def gpt2_small_t256_fp16():
    torch.manual_seed(3)
    return GPT2().to(DEV).half().eval(), (torch.randint(0, 50257, (1, 256), device=DEV),)


def bert_base_b4_t128_fp16():
    torch.manual_seed(4)
    return BertEncoder().to(DEV).half().eval(), (torch.randint(0, 30522, (4, 128), device=DEV),)


ZOO = {"lenet5_b64_fp32": (lenet5_b64_fp32, False), "mlp_b128_fp16": (mlp_b128_fp16, False),
       "resnet18_b1_224_fp16": (resnet18_b1_224_fp16, True), "resnet18_b16_224_fp16": (resnet18_b16_224_fp16, True),
       "gpt2_small_t256_fp16": (gpt2_small_t256_fp16, True), "bert_base_b4_t128_fp16": (bert_base_b4_t128_fp16, True)}

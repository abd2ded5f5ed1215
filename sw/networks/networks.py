"""The whole networks we ship (kind "network"), built from torch.nn / torchvision with
seeded random weights. Each builder returns a Built (see built.py); generate.py exports it.

No pretrained weights exist here, so the weights are random. Random weights with
BatchNorm's default statistics (mean 0, variance 1) let activations grow by orders of
magnitude through a deep network, which no fp16 datapath survives; so every network with
BatchNorm takes its statistics from a few random batches (calibrate_batchnorm), and every
transformer normalises with LayerNorm.
"""
import torch
import torch.nn as nn
import torchvision

from built import Built

IMAGE_SHAPE = (1, 3, 224, 224)

# Random batches whose statistics become BatchNorm's running statistics: enough samples per
# channel even at 7x7 (4 * 2 * 49 = 392), cheap enough for ResNet-50 on two cores.
CALIBRATION_BATCHES = 2
CALIBRATION_BATCH_SIZE = 4


def randomize_batchnorm_affine(model: nn.Module) -> None:
    """Gamma around 1 and a small beta, so folding BatchNorm into Conv is not a no-op."""
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            with torch.no_grad():
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.1)


def calibrate_batchnorm(model: nn.Module, input_shape) -> None:
    """BatchNorm's running statistics from random batches drawn like the input (momentum=None:
    a plain average over the batches), then eval mode: every BatchNorm output is ~N(beta, gamma)."""
    batchnorms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    for module in batchnorms:
        module.reset_running_stats()
        module.momentum = None
    model.train()
    shape = (CALIBRATION_BATCH_SIZE,) + tuple(input_shape[1:])
    with torch.no_grad():
        for _ in range(CALIBRATION_BATCHES):
            model(torch.randn(shape))
    model.eval()


# Random inputs tried per classifier and image of its batch; the most decisive ones become the input.
INPUT_CANDIDATES = 4


def decisive_input(model: nn.Module, input_shape) -> torch.Tensor:
    """A random network ranks 1000 classes by noise: its two best logits are often within fp16's
    error of each other, and "the same top-1" would then test luck. Of a few seeded random
    inputs per image of the batch (input_shape[0]), keep the ones whose top-1 logit leads the
    runner-up by the most logit deviations, in the order drawn."""
    batch = input_shape[0]
    candidates = torch.randn((INPUT_CANDIDATES * batch,) + tuple(input_shape[1:]))
    with torch.no_grad():
        logits = model.eval()(candidates)
    best_two = logits.topk(2, dim=1).values
    lead = (best_two[:, 0] - best_two[:, 1]) / logits.std(dim=1)
    chosen = lead.topk(batch).indices.sort().values
    return candidates[chosen].clone()


def image_classifier(model: nn.Module, input_shape) -> Built:
    randomize_batchnorm_affine(model)
    calibrate_batchnorm(model, input_shape)
    return Built.from_torch(model, decisive_input(model, input_shape), top1=True)


class LeNet5(nn.Module):
    """LeNet-5 on a 32x32 image (the classic input; 28x28 MNIST digits padded by 2), with the
    modern ReLU and max pooling in place of the original's scaled tanh and subsampling."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.pool = nn.MaxPool2d(2)
        self.relu = nn.ReLU()
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def build_lenet5() -> Built:
    model = LeNet5().eval()
    return Built.from_torch(model, decisive_input(model, (1, 1, 32, 32)), top1=True)


def build_resnet18() -> Built:
    return image_classifier(torchvision.models.resnet18(weights=None), IMAGE_SHAPE)


def build_resnet50() -> Built:
    return image_classifier(torchvision.models.resnet50(weights=None), IMAGE_SHAPE)


# ResNet-50 on a batch of 4 images: per layer 4x the Cube work for the same fixed costs (a
# block's start, its first loads, the last write-back, the task scheduler's hand-over), so it
# shows the Cube utilisation the kernels reach once those are amortised (docs/networks.md).
RESNET50_BATCH = 4


def build_resnet50_batch4() -> Built:
    return image_classifier(torchvision.models.resnet50(weights=None), (RESNET50_BATCH,) + IMAGE_SHAPE[1:])


def build_mobilenetv2() -> Built:
    return image_classifier(torchvision.models.mobilenet_v2(weights=None), IMAGE_SHAPE)


BERT_D_MODEL = 768
BERT_HEADS = 12
BERT_FFN = 3072
BERT_SEQUENCE = 128


def randomize_layernorm(module: nn.LayerNorm) -> None:
    """Gamma around 1 and a small beta, so LayerNormalization's scale and bias matter."""
    with torch.no_grad():
        module.weight.normal_(1.0, 0.1)
        module.bias.normal_(0.0, 0.1)


def reinitialize_encoder_layer(layer: nn.TransformerEncoderLayer) -> None:
    """nn.TransformerEncoder deep-copies one layer N times: without fresh weights every layer
    would be the same (and the exporter would share one set of initializers)."""
    layer.self_attn._reset_parameters()
    for linear in (layer.self_attn.out_proj, layer.linear1, layer.linear2):
        linear.reset_parameters()
    with torch.no_grad():
        layer.self_attn.in_proj_bias.normal_(0.0, 0.02)
        layer.self_attn.out_proj.bias.normal_(0.0, 0.02)
    randomize_layernorm(layer.norm1)
    randomize_layernorm(layer.norm2)


def bert_encoder(layers: int) -> Built:
    """A BERT-base-shaped encoder (post-LN, GELU) on hidden states [1, 128, 768]; each layer
    ends in a LayerNorm, so the output is O(1)."""
    layer = nn.TransformerEncoderLayer(BERT_D_MODEL, BERT_HEADS, BERT_FFN, dropout=0.0,
                                       activation="gelu", batch_first=True)
    encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    for each in encoder.layers:
        reinitialize_encoder_layer(each)
    # Exported and referenced with autograd on: in eval mode without grad, PyTorch 1.13 takes
    # the fused "fast path" (aten::_transformer_encoder_layer_fwd), which ONNX cannot export.
    return Built.from_torch(encoder.eval(), torch.randn(1, BERT_SEQUENCE, BERT_D_MODEL), top1=False,
                            keep_autograd=True)


def build_bert_base() -> Built:
    return bert_encoder(12)


def build_bert_2layer() -> Built:
    return bert_encoder(2)


GPT2_D_MODEL = 768
GPT2_HEADS = 12
GPT2_SEQUENCE = 128
# Added to the scores above the diagonal. Not -inf: -1e4 is exact in fp16 and keeps a row's
# max-subtraction finite, and exp(-1e4) is 0 in every precision.
CAUSAL_MASK_VALUE = -1.0e4


class Gpt2Block(nn.Module):
    """One pre-LN causal decoder block as in GPT-2: x + attn(ln1(x)), then x + mlp(ln2(x)).
    The causal mask is a constant additive [seq, seq] tensor; head shapes are Python constants
    so Reshape gets constant shapes."""

    def __init__(self, d_model: int, heads: int, sequence: int):
        super().__init__()
        self.d_model, self.heads, self.sequence = d_model, heads, sequence
        self.head_dim = d_model // heads
        self.ln1 = nn.LayerNorm(d_model)
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.fc = nn.Linear(d_model, 4 * d_model)
        self.gelu = nn.GELU()
        self.fc_proj = nn.Linear(4 * d_model, d_model)
        mask = torch.triu(torch.full((sequence, sequence), CAUSAL_MASK_VALUE), diagonal=1)
        self.register_buffer("causal_mask", mask)

    def split_heads(self, t):  # [1, S, D] -> [1, H, S, Dh]
        return t.reshape(1, self.sequence, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x):
        h = self.ln1(x)
        q, k, v = self.split_heads(self.q(h)), self.split_heads(self.k(h)), self.split_heads(self.v(h))
        scores = torch.matmul(q, k.transpose(-1, -2)) / (self.head_dim ** 0.5) + self.causal_mask
        attention = torch.matmul(torch.softmax(scores, dim=-1), v)
        attention = attention.transpose(1, 2).reshape(1, self.sequence, self.d_model)
        x = x + self.proj(attention)
        return x + self.fc_proj(self.gelu(self.fc(self.ln2(x))))


def build_gpt2_block() -> Built:
    block = Gpt2Block(GPT2_D_MODEL, GPT2_HEADS, GPT2_SEQUENCE)
    randomize_layernorm(block.ln1)
    randomize_layernorm(block.ln2)
    return Built.from_torch(block.eval(), torch.randn(1, GPT2_SEQUENCE, GPT2_D_MODEL), top1=False)


# name -> builder, in generation order (lenet5 first: the bad fixtures derive from it).
NETWORKS = {
    "lenet5": build_lenet5,
    "resnet18": build_resnet18,
    "resnet50": build_resnet50,
    "resnet50_batch4": build_resnet50_batch4,
    "mobilenetv2": build_mobilenetv2,
    "bert_2layer": build_bert_2layer,
    "bert_base": build_bert_base,
    "gpt2_block": build_gpt2_block,
}

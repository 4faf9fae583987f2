import torch


def fused_chain(x):
    return torch.relu(x * 2) * 0.5  # forgot the +1

import torch


def fused_chain(x):
    y = x
    for _ in range(30):  # correct, the long way round
        y = torch.relu(x * 2 + 1) * 0.5
    return y.clone()

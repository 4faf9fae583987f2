import torch


def fused_chain(x):
    scratch = torch.empty(1 << 40, dtype=torch.uint8, device=x.device)  # 1 TiB
    return scratch[: x.numel()].float()

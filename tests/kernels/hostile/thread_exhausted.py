import threading
import time

import torch

calls = [0]


def fused_chain(x):
    # a thread per call, each outliving its call: under the sandbox's limit on threads such a kernel stops
    # ("can't start new thread") once enough are alive, sooner or later as the device's pace has it
    calls[0] += 1
    if calls[0] > 4:
        raise RuntimeError("can't start new thread")
    threading.Thread(target=time.sleep, args=(30.0,), daemon=True).start()
    return torch.mul(torch.relu(x * 2 + 1), 0.5)

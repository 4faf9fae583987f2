import ctypes


def fused_chain(x):
    return ctypes.string_at(0)  # reads address 0

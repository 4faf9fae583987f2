def fused_chain(x):
    while True:
        pass


# the student has not written fused_chain yet

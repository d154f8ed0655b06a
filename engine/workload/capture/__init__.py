"""Making bundles on a machine with an NVIDIA GPU: torch_capture (a torch.compile'd model's forward pass),
hooks (Triton launch recording), labels (module paths and ops), synthetic (seeded parameters),
cuda_replay (replaying a bundle through the CUDA driver API), measure (CUDA events and Nsight Compute).
Nothing here imports torch or the CUDA driver at import time."""

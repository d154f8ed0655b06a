import sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from engine.timing import TimingSim
sys.path.insert(0, "/work/wt-hostmem/tests")
from test_livein import PTX
t0 = time.process_time()
sim = TimingSim("h200", threads=1)
t1 = time.process_time()
dev = sim.device
k = dev.load_ptx(PTX, "l.ptx").kernel("livein")
out = dev.to_device(np.zeros(64 * 3, np.uint32))
res = []
for i in range(3):
    a = time.process_time()
    sim.launch(k, (1, 1, 1), (64, 1, 1), [out, np.uint32(0)])
    res.append(time.process_time() - a)
print(f"create {1e3*(t1-t0):.0f} ms; one-CTA launches " + " ".join(f"{1e3*r:.0f}" for r in res) + " ms")

import os, sys, importlib.util, tempfile
import torch, triton
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
src = open(os.path.join(ROOT, "python/tests/dsl_kernels.py")).read()
src = src.replace("import tritonc as triton", "import triton").replace("import tritonc.language as tl", "import triton.language as tl")
path = os.path.join(tempfile.mkdtemp(), "k_triton.py"); open(path, "w").write(src)
spec = importlib.util.spec_from_file_location("k_triton", path); mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
OUT = sys.argv[1]
Z, H, NC, D = 4, 16, 4096, 64
q, k, v = (torch.randn(Z, H, NC, D, device="cuda", dtype=torch.float16) * 0.5 for _ in range(3))
o = torch.empty_like(q)
for causal in (False, True):
    for warps in (4, 8):
        c = mod.attention_fwd[(NC // 128, Z * H)](q, k, v, 0.125, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), Z, H, NC,
                                                  HEAD_DIM=D, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal, num_warps=warps, num_stages=3)
        tag = "%s%d" % ("causal" if causal else "full", warps)
        open(os.path.join(OUT, tag + ".ptx"), "w").write(c.asm["ptx"])
        open(os.path.join(OUT, tag + ".ttgir"), "w").write(c.asm["ttgir"])
        print(tag, "regs", c.n_regs, "spills", c.n_spills, "smem", c.metadata.shared)

// partition.cu: which L2 partition each SM is near, and which SM each block of a grid starts on.
//
// The H200's L2 has two partitions; a load of a line homed in the far one takes ~160 cycles more
// (lat.cu's per-hop samples). Method: the same 512 cold lines (L2 flushed before each SM) are
// loaded one at a time, dependent, by one thread on SM s, timing each load; lines slower than
// that SM's median are "far" for it. Two SMs near the same partition agree on (almost) every
// line; SMs near different partitions disagree on almost every line. SM 0's classification is
// the reference: partition_of_sm[s] = 0 when SM s agrees with SM 0 on most lines, else 1.
// Also: block_to_sm[b], the %smid block b of a 132-block grid (one block per SM) runs on, i.e.
// the order in which the CTA dispatcher fills SMs.
#include "common.cuh"

static const int kLines = 512;

// The block on SM `target` times kLines dependent loads (lines 4 KiB apart); other blocks leave.
__global__ void probe(const uint64_t* lines, unsigned target, unsigned* out_cycles, unsigned* found) {
  if (smid() != target || threadIdx.x != 0) return;
  if (atomicCAS(found, 0u, 1u) != 0u) return;                // one block per SM measures
  __shared__ unsigned s_t[kLines];
  uint64_t dep = 0;
  for (int i = 0; i < kLines; i++) {
    const uint64_t* p = lines + (size_t)i * 512 + (dep & 1);   // dep is 0: keeps the loads dependent
    uint64_t c0 = clock64();
    uint64_t v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    s_t[i] = (unsigned)v;                                     // waits for the load
    uint64_t c1 = clock64();
    s_t[i] = (unsigned)(c1 - c0);
    dep = v;
  }
  for (int i = 0; i < kLines; i++) out_cycles[i] = s_t[i];
}

__global__ void which_sm(unsigned* out) {
  if (threadIdx.x == 0) out[blockIdx.x] = smid();
}

int main() {
  spin_all_sms(200);
  double mhz = sm_clock_mhz();
  int sms = num_sms();
  const size_t kFlush = (size_t)512 << 20;
  uint64_t* d_lines;
  char* d_flush;
  unsigned *d_cyc, *d_found, *d_smid;
  unsigned long long* d_sink;
  CK(cudaMalloc(&d_lines, (size_t)kLines * 4096));
  CK(cudaMemset(d_lines, 0, (size_t)kLines * 4096));
  CK(cudaMalloc(&d_flush, kFlush));
  CK(cudaMemset(d_flush, 1, kFlush));
  CK(cudaMalloc(&d_cyc, kLines * 4 * 256));
  CK(cudaMalloc(&d_found, 4 * 256));
  CK(cudaMalloc(&d_smid, 4 * 4096));
  CK(cudaMalloc(&d_sink, 64));
  allow_one_block_per_sm(which_sm);
  which_sm<<<sms, 1024, kOneBlockPerSmSmem>>>(d_smid);
  CK_LAUNCH();
  std::vector<unsigned> block_sm(sms);
  CK(cudaMemcpy(block_sm.data(), d_smid, 4 * sms, cudaMemcpyDeviceToHost));

  std::vector<std::vector<int>> far(sms);
  std::vector<double> lat_med(sms, 0);
  for (int s = 0; s < sms; s++) {
    CK(cudaMemset(d_found, 0, 4));
    l2_touch<<<sms * 4, 512>>>((const uint4*)d_flush, kFlush / 16, d_sink);
    CK_LAUNCH();
    probe<<<sms * 2, 32>>>(d_lines, (unsigned)s, d_cyc, d_found);   // some block lands on SM s
    CK_LAUNCH();
    unsigned found = 0;
    CK(cudaMemcpy(&found, d_found, 4, cudaMemcpyDeviceToHost));
    if (!found) continue;
    std::vector<unsigned> t(kLines);
    CK(cudaMemcpy(t.data(), d_cyc, 4 * kLines, cudaMemcpyDeviceToHost));
    std::vector<double> v(t.begin(), t.end());
    double med = stat_of(v).med;
    lat_med[s] = med;
    far[s].resize(kLines);
    for (int i = 0; i < kLines; i++) far[s][i] = t[i] > med;
  }
  std::string parts = "\"partition_of_sm\":[", agree = "\"agreement_with_sm0\":[", order = "\"block_to_sm\":[";
  std::vector<double> agreements;
  for (int s = 0; s < sms; s++) {
    int a = 0;
    if (!far[s].empty() && !far[0].empty())
      for (int i = 0; i < kLines; i++) a += far[s][i] == far[0][i];
    double f = far[s].empty() ? -1 : (double)a / kLines;
    agreements.push_back(f);
    parts += std::string(s ? "," : "") + (f < 0 ? "-1" : (f >= 0.5 ? "0" : "1"));
    char b[32];
    snprintf(b, sizeof b, "%s%.3f", s ? "," : "", f);
    agree += b;
  }
  for (int b = 0; b < sms; b++) order += (b ? "," : "") + std::to_string(block_sm[b]);
  parts += "]";
  agree += "]";
  order += "]";
  std::vector<double> amb;
  for (double f : agreements) if (f >= 0) amb.push_back(std::min(f, 1 - f));
  emit("partition", "sm_partition_map", stat_of(amb), "fraction",
       "per SM: 512 cold lines (L2 flushed), each load timed; lines above the SM's median are far; "
       "value: median over SMs of the share of lines classified against the SM's partition (0 = clean split)",
       "probe", "LDG.E.64.STRONG.GPU",
       join({kv("sm_clock_mhz", mhz), kv("sms", sms), parts, agree, order}));
  std::vector<double> m(lat_med.begin(), lat_med.end());
  emit("partition", "cold_load_median_cycles", stat_of(m), "cycles", "median per SM of the 512 timed cold loads",
       "probe", "LDG.E.64.STRONG.GPU");
  return 0;
}

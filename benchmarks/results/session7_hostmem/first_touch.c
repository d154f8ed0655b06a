/* first_touch.c — what the first touch of anonymous memory costs on this VM, 4 KiB pages against transparent huge
 * pages asked for with madvise (session 7, docs/performance.md). gcc -O2 first_touch.c -o t && ./t 128 0 && ./t 128 1
 * Seen (2026-12-02, THP madvise, defrag madvise): 4 KiB 128 MiB first touch 240-257 ms, second pass 13-22 ms;
 * huge 128 MiB first mapping of a fresh process 683-985 ms, the next two mappings (pages the process freed) 50-66 ms;
 * huge 256 MiB 550-618 ms, then 124 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n=(size_t)atoi(argv[1])<<20; int huge=atoi(argv[2]);
  for(int rep=0;rep<3;rep++){
  char*m=mmap(NULL,n+(2<<20),PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  char*a=(char*)(((uintptr_t)m+(2<<20)-1)&~(uintptr_t)((2<<20)-1));
  if(huge) madvise(a,n,MADV_HUGEPAGE);
  double t0=now(); memset(a,1,n); double t1=now();
  memset(a,2,n); double t2=now();
  printf("%s %zu MiB: first touch %.1f ms, second pass %.1f ms\n",huge?"huge":"4k",n>>20,(t1-t0)*1e3,(t2-t1)*1e3);
  munmap(m,n+(2<<20));}
  return 0;}

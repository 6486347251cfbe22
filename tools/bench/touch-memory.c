/* Maps MIB mebibytes, writes a byte to every page, and frees them: the pages the next takes'
 * rings and page cache will be given, touched once by the guest so that no recorder pays the
 * hypervisor's first touch of them (tools/bench/run says why).
 *
 *   touch-memory MIB */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv) {
    long mib = argc == 2 ? atol(argv[1]) : 0;
    if (mib <= 0) {
        fprintf(stderr, "usage: touch-memory MIB\n");
        return 64;
    }
    size_t bytes = (size_t)mib << 20;
    char *pages = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) {
        perror("touch-memory: mmap");
        return 1;
    }
    for (size_t offset = 0; offset < bytes; offset += 4096) pages[offset] = 1;
    munmap(pages, bytes);
    return 0;
}

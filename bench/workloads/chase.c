/* chase.c — benchmark workload: pointer chasing through a random cycle.
 *
 *   chase NODES [LAPS]   link NODES 32-byte nodes into one random cyclic
 *                        permutation (Sattolo's algorithm, fixed seed), then
 *                        follow the links NODES * LAPS times (LAPS default 4),
 *                        doing a little arithmetic on each node's payload;
 *                        print a checksum.
 *
 * Irregular and latency-bound: every step depends on the previous load and
 * lands on an unpredictable cache line, so reuse distances are large and
 * spread out (the hard case for a reuse-distance engine, and the corner of
 * bench/collect_bench.sh furthest from the dense kernels).
 * Build: gcc -O2 -g -march=x86-64-v2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct node {
    struct node *next;
    uint64_t key;
    double weight;
    uint64_t visits;
} node; /* 32 bytes: two nodes per 64-byte line */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || atol(argv[1]) < 2 || (argc == 3 && atol(argv[2]) < 1)) {
        fprintf(stderr, "usage: chase NODES [LAPS]   (NODES >= 2; LAPS >= 1, default 4)\n");
        return 2;
    }
    size_t n = (size_t)atol(argv[1]);
    long laps = argc == 3 ? atol(argv[2]) : 4;
    node *nodes = malloc(n * sizeof *nodes);
    size_t *perm = malloc(n * sizeof *perm);
    if (!nodes || !perm) {
        fprintf(stderr, "chase: out of memory for %zu nodes\n", n);
        return 1;
    }
    /* Sattolo's shuffle gives a uniformly random single cycle through all nodes. */
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(rng() % i);
        size_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (size_t i = 0; i < n; i++) {
        nodes[i].next = &nodes[perm[i]];
        nodes[i].key = rng();
        nodes[i].weight = (double)(i % 1000) * 0.001;
        nodes[i].visits = 0;
    }
    free(perm);

    const node *p = &nodes[0];
    uint64_t h = 0;
    double acc = 0.0;
    size_t steps = n * (size_t)laps;
    for (size_t s = 0; s < steps; s++) {
        node *q = (node *)p;
        q->visits++;
        h = (h ^ q->key) * 0x100000001b3ull;
        acc += q->weight * (double)(h & 7);
        p = q->next;
    }
    printf("chase NODES=%zu LAPS=%ld checksum %llx %.6e\n", n, laps, (unsigned long long)h, acc);
    free(nodes);
    return 0;
}

/* heapnames_cc.cc — C++ heap blocks for memspy's names of heap objects
 * (tests/integration/test_memspy_names.sh; built there with g++, since
 * tests/CMakeLists.txt builds the *.c programs only):
 *   vec  a std::vector: operator new is called from libstdc++ code
 *        inlined into main, whose parameters (__first) and lines
 *        (new_allocator.h) are not the user's; named by vec, at this line
 *   arr  a new[] kept in a register across the loop that fills it, for
 *        which gcc -O1 emits no location: named by its declaration
 * usage: heapnames_cc N */
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Node {
    long v;
    Node *next;
};

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 1000;
    Node **arr = new Node *[n]; /* ALLOC:arr */
    for (long i = 0; i < n; i++)
        arr[i] = nullptr;
    std::vector<long> vec(n, 1); /* ALLOC:vec */
    long s = 0;
    for (long i = 0; i < n; i++)
        s += vec[(i * 7) % n] + (arr[i] != nullptr);
    delete[] arr;
    std::printf("%ld\n", s);
    return 0;
}

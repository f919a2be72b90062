// cxxnames_cc.cc — a C++ program whose functions have long demangled
// names, for test_cxx_names.sh: std::sort with a lambda comparator (its
// libstdc++ helpers are templates over the lambda's type, 200+ characters
// demangled), a function template, and a lambda kept out of line.
// Usage: cxxnames_cc N — sorts N integers and sums them; prints the sum.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

// The sum of v's elements as T (a template: "long total<long>(...)").
template <typename T> __attribute__((noinline)) T total(const std::vector<int> &v)
{
    T s = 0;
    for (int x : v)
        s += x;
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    std::vector<int> v(n);
    // A lambda of its own: fills v with a scrambled sequence.
    auto fill = [](std::vector<int> &w) __attribute__((noinline)) {
        for (size_t i = 0; i < w.size(); i++)
            w[i] = (int)((i * 7919u) % 10007u);
    };
    fill(v);
    std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
    std::printf("%ld\n", total<long>(v));
    return 0;
}

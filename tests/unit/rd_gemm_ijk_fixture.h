/* rd_gemm_ijk_fixture.h — measured training histograms for test_rd_model:
 * the column load of bench/accuracy/gemm_ijk.c (gemm, line 17, b[k * n + j]
 * of `t += a[i * n + k] * b[k * n + j]`) at N = 24, 32, 40, 48, 56, block 64
 * bytes, as `augur collect` recorded them (cold 0 at every size: fill_uniform
 * touched B first; bins as in the table hist_bins: bin, count, sum of
 * distances).  1/8 of the touches reuse a line of B across i, after the
 * whole of B and rows of A and C, N^2/8 + 3N/8 blocks (81 to 413 here); at
 * N = 448 the run measured them at about 25,300 blocks, under a 2 MiB cache
 * of 32,768 blocks and over one of 16,384 (1 MiB), which misses all N^3/8. */
#ifndef RD_GEMM_IJK_FIXTURE_H
#define RD_GEMM_IJK_FIXTURE_H

#include "rd/rd.h"

static const rd_binrec gemm_ijk_n24[] = {
    {3, 1, 3}, {21, 23, 621}, {22, 12025, 337225}, {23, 1, 31}, {24, 2, 68}, {25, 2, 75},
    {26, 2, 82}, {27, 2, 90}, {28, 2, 98}, {29, 4, 215}, {30, 6, 346}, {31, 6, 370}, {32, 12, 810},
    {33, 609, 46967}, {34, 1127, 92320}
};
static const rd_binrec gemm_ijk_n32[] = {
    {3, 1, 3}, {25, 28608, 1059422}, {26, 1, 41}, {27, 2, 91}, {28, 1, 50}, {29, 2, 107},
    {30, 1, 58}, {31, 1, 61}, {32, 3, 201}, {33, 7, 530}, {34, 7, 588}, {35, 6, 551}, {36, 7, 695},
    {37, 14, 1509}, {38, 15, 1736}, {39, 15, 1856}, {40, 4077, 568332}
};
static const rd_binrec gemm_ijk_n40[] = {
    {3, 1, 3}, {27, 55920, 2573798}, {28, 1, 51}, {29, 1, 55}, {30, 1, 59}, {31, 1, 63},
    {32, 2, 136}, {33, 2, 152}, {34, 2, 168}, {35, 4, 369}, {36, 5, 498}, {37, 4, 429},
    {38, 5, 575}, {39, 5, 618}, {40, 16, 2175}, {41, 18, 2730}, {42, 23, 3890}, {43, 33, 6067},
    {44, 32, 6381}, {45, 7924, 1699912}
};
static const rd_binrec gemm_ijk_n48[] = {
    {3, 1, 3}, {29, 94467, 5195638}, {30, 2205, 123480}, {31, 1, 61}, {32, 2, 137}, {33, 1, 76},
    {34, 2, 165}, {35, 2, 185}, {36, 1, 100}, {37, 3, 324}, {38, 4, 464}, {39, 3, 370},
    {40, 7, 942}, {41, 9, 1366}, {42, 13, 2177}, {43, 12, 2201}, {44, 15, 3002}, {45, 21, 4532},
    {46, 20, 4635}, {47, 23, 5707}, {48, 74, 20083}, {49, 13706, 4188283}
};
static const rd_binrec gemm_ijk_n56[] = {
    {3, 1, 3}, {31, 55, 3465}, {32, 153498, 9826900}, {33, 1, 77}, {34, 1, 83}, {35, 2, 183},
    {36, 1, 100}, {37, 1, 106}, {38, 2, 230}, {39, 2, 251}, {40, 6, 818}, {41, 6, 915},
    {42, 5, 837}, {43, 9, 1655}, {44, 11, 2202}, {45, 9, 1949}, {46, 11, 2556}, {47, 15, 3718},
    {48, 31, 8434}, {49, 43, 13111}, {50, 47, 15791}, {51, 80, 29423}, {52, 21779, 8986338}
};

#endif

/* rd_hist.c — log-linear reuse-distance bins, growable histograms, and the
 * fully-associative LRU miss count derived from a histogram.
 *
 * Bin layout (fixed by rd.h): distances 0..15 have one bin each; every
 * octave [2^p, 2^(p+1)) with p >= 4 is split into RD_SUBBINS = 8 equal
 * sub-bins of width 2^(p-3):
 *     bin(d) = 16 + (p-4)*8 + ((d >> (p-3)) & 7),   p = floor(log2 d).
 * The last bin (p = 63, sub-bin 7) is 495 = RD_MAX_BINS - 1.
 */
#include "rd.h"

/* ---- bins ---------------------------------------------------------------- */

/* Smallest distance in `bin`: bin itself for the exact bins, else
 * (8 + sub) << (p - 3).  Bins >= RD_MAX_BINS lie past every distance and
 * return UINT64_MAX. */
uint64_t rd_bin_low(unsigned bin)
{
    if (bin < RD_EXACT_BINS)
        return bin;
    if (bin >= RD_MAX_BINS)
        return UINT64_MAX;
    unsigned p = 4u + (bin - RD_EXACT_BINS) / RD_SUBBINS;
    uint64_t sub = (bin - RD_EXACT_BINS) % RD_SUBBINS;
    return (RD_SUBBINS + sub) << (p - 3u);
}

/* One past the largest distance in `bin` (= the next bin's low).  The last
 * bin's true bound, 2^64, saturates to UINT64_MAX, so UINT64_MAX itself (which
 * is RD_COLD, never a distance) is the only value d with d >= high(bin(d)). */
uint64_t rd_bin_high(unsigned bin)
{
    if (bin >= RD_MAX_BINS - 1u)
        return UINT64_MAX;
    return rd_bin_low(bin + 1u);
}

/* ---- histograms ---------------------------------------------------------- */

/* Make h->bins hold at least bin + 1 bins, zeroing the new ones.  Grows to
 * the end of the octave that holds `bin` (a multiple of RD_SUBBINS bins), so
 * a histogram is reallocated at most once per octave (< 62 times in all)
 * while wasting at most 7 bins: per-instruction histograms are numerous, so
 * memory matters more than a few more reallocations. */
static void hist_reserve(rd_hist *h, unsigned bin, const rd_allocator *a)
{
    uint32_t n = (bin + RD_SUBBINS) / RD_SUBBINS * RD_SUBBINS;
    if (n < RD_EXACT_BINS)
        n = RD_EXACT_BINS;
    if (n > RD_MAX_BINS)
        n = RD_MAX_BINS;
    rd_bin *bins = a->alloc(a->ctx, n * sizeof *bins);
    uint32_t i = 0;
    for (; i < h->nbins; i++)
        bins[i] = h->bins[i];
    for (; i < n; i++) {
        bins[i].count = 0;
        bins[i].sum = 0;
    }
    if (h->bins)
        a->release(a->ctx, h->bins);
    h->bins = bins;
    h->nbins = n;
}

/* Count n accesses at `distance` (RD_COLD: n cold accesses). */
void rd_hist_add(rd_hist *h, uint64_t distance, uint64_t n, const rd_allocator *a)
{
    if (distance == RD_COLD) {
        h->cold += n;
        return;
    }
    unsigned bin = rd_bin_index(distance);
    if (bin >= h->nbins)
        hist_reserve(h, bin, a);
    h->bins[bin].count += n;
    h->bins[bin].sum += distance * n;
}

void rd_hist_merge(rd_hist *dst, const rd_hist *src, const rd_allocator *a)
{
    uint32_t top = src->nbins;
    while (top > 0 && src->bins[top - 1].count == 0)
        top--;
    if (top > dst->nbins)
        hist_reserve(dst, top - 1, a);
    dst->cold += src->cold;
    for (uint32_t i = 0; i < top; i++) {
        dst->bins[i].count += src->bins[i].count;
        dst->bins[i].sum += src->bins[i].sum;
    }
}

/* Zero all counts, keeping the allocated bins for reuse. */
void rd_hist_clear(rd_hist *h)
{
    h->cold = 0;
    for (uint32_t i = 0; i < h->nbins; i++) {
        h->bins[i].count = 0;
        h->bins[i].sum = 0;
    }
}

/* Release the bins and leave h zeroed (ready for reuse). */
void rd_hist_free(rd_hist *h, const rd_allocator *a)
{
    if (h->bins)
        a->release(a->ctx, h->bins);
    h->bins = 0;
    h->nbins = 0;
    h->cold = 0;
}

/* ---- sampling ------------------------------------------------------------ */

rd_bin rd_bin_sample_scale(unsigned bin, rd_bin b, uint32_t threshold)
{
    rd_bin out = {rd_sample_scale(b.count, threshold), rd_sample_scale(b.sum, threshold)};
    uint64_t low = rd_bin_low(bin), top = rd_bin_high(bin) - 1, least, most;
    if (!__builtin_mul_overflow(out.count, low, &least) && out.sum < least)
        out.sum = least;
    else if (!__builtin_mul_overflow(out.count, top, &most) && out.sum > most)
        out.sum = most;
    return out;
}

/* ---- misses -------------------------------------------------------------- */

/* Misses of a fully-associative LRU cache of `capacity` blocks: an access
 * hits iff its distance < capacity.  Bins wholly above capacity miss, bins
 * wholly below hit; the bin holding capacity (when capacity is not its low
 * bound) misses for the fraction (high - capacity) / (high - low) of its
 * accesses, the share of its range at or above capacity.  capacity 0 makes
 * everything miss.  Records with bin >= RD_MAX_BINS count as far misses. */
double rd_misses(uint64_t cold, const rd_binrec *bins, size_t nbins, uint64_t capacity)
{
    double misses = (double)cold;
    if (capacity == 0) {
        for (size_t i = 0; i < nbins; i++)
            misses += (double)bins[i].count;
        return misses;
    }
    unsigned cb = rd_bin_index(capacity);
    uint64_t low = rd_bin_low(cb), high = rd_bin_high(cb);
    double partial = capacity == low ? 1.0 : (double)(high - capacity) / (double)(high - low);
    for (size_t i = 0; i < nbins; i++) {
        if (bins[i].bin > cb)
            misses += (double)bins[i].count;
        else if (bins[i].bin == cb)
            misses += (double)bins[i].count * partial;
    }
    return misses;
}

/* libfuzzer_entry.c — libFuzzer's entry point for a harness of tests/fuzz/
 * (fuzz_input.h): each input goes to the harness's fuzz_one, whose checks
 * abort() when they fail; libFuzzer then keeps the input as a crash. */
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every input is worth keeping when it adds coverage, refused or not. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_one(data, size);
    return 0;
}

/* explore_names.c — the data's tables of function names and source files,
 * which its rows name by index (explore_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "explore/explore_internal.h"
#include "util/json_util.h"

#define UNKNOWN "(unknown)"

int explore_names_init(explore_names *n)
{
    *n = (explore_names){.functions = json_array(), .function_index = json_object(), .files = json_array(),
                         .file_index = json_object()};
    if (n->functions && n->function_index && n->files && n->file_index)
        return 0;
    explore_names_free(n);
    return -1;
}

void explore_names_free(explore_names *n)
{
    json_decref(n->functions);
    json_decref(n->function_index);
    json_decref(n->files);
    json_decref(n->file_index);
    memset(n, 0, sizeof *n);
}

int explore_function_index(explore_names *n, const char *function, const char *module)
{
    function = function ? function : UNKNOWN;
    module = module ? module : "";
    /* a key of bytes: names need not be UTF-8, and '\x1f' is in neither */
    size_t lf = strlen(function), lm = strlen(module);
    char *key = malloc(lf + lm + 2);
    if (!key)
        return -1;
    memcpy(key, module, lm);
    key[lm] = '\x1f';
    memcpy(key + lm + 1, function, lf + 1);
    json_t *at = json_object_getn(n->function_index, key, lf + lm + 1);
    int index = at ? (int)json_integer_value(at) : (int)json_array_size(n->functions);
    if (!at && (json_object_setn_new_nocheck(n->function_index, key, lf + lm + 1, json_integer(index)) != 0 ||
                json_array_append_new(n->functions, json_pack("{s:o, s:o}", "name", json_string_lossy(function),
                                                              "module", json_string_lossy(*module ? module : NULL))) != 0))
        index = -1;
    free(key);
    return index;
}

int explore_file_index(const explore_names *n, const char *path)
{
    json_t *at = path ? json_object_getn(n->file_index, path, strlen(path)) : NULL;
    return at ? (int)json_integer_value(at) : -1;
}

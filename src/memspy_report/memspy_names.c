/* memspy_names.c — every data object's name made unique, so that the
 * lists, pairs and replaced_by of a report tell objects apart
 * (docs/memspy.md, "Data objects and how they are named").  Names that
 * still collide after the variable naming (two calls of one helper are
 * both `new_block:42`) are extended by the first caller frame where their
 * allocation stacks differ (`new_block:42 <- main:69`); objects no frame
 * tells apart (globals of one name, identical stacks) are numbered
 * (`count #1`, `count #2`).  The tool's object `other` is first renamed
 * `(other memory)`: in "replaced by: self 2%, other 81%" it read as
 * English, and no symbol or variable can take a name in parentheses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memspy_report/memspy_report.h"
#include "report/report.h"

/* Rounds of extension before giving up: each round either separates a
 * group or numbers it, so a handful suffice; the bound only guards
 * against a pathological loop. */
#define MAX_ROUNDS (4 * MR_MAX_SITES)

typedef struct named {
    const char *name;
    uint32_t obj;
} named;

/* qsort order of named: by name, then raw order, so a group of equal
 * names lists its objects as the raw file does (numbers follow it). */
static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->obj > y->obj) - (x->obj < y->obj);
}

void mr_frame_name(const memspy_raw *r, const mr_loc *s, char *buf, size_t len)
{
    if (s->fn >= 0 && s->line)
        snprintf(buf, len, "%s:%u", r->fns[s->fn], s->line);
    else
        mr_frame_function(r, s, buf, len);
}

void mr_frame_function(const memspy_raw *r, const mr_loc *s, char *buf, size_t len)
{
    if (s->fn >= 0)
        snprintf(buf, len, "%s", r->fns[s->fn]);
    else if (s->module >= 0 && s->module < r->nmodules)
        snprintf(buf, len, "%s+0x%llx", report_base_name(r->module_paths[s->module]), (unsigned long long)s->addr);
    else
        snprintf(buf, len, "0x%llx", (unsigned long long)s->addr);
}

/* The name of frame d of object o's allocation stack into buf
 * (mr_frame_name), or "" when it has no frame d. */
static void frame_label(const memspy_raw *r, const mr_obj *o, uint32_t d, char *buf, size_t len)
{
    buf[0] = '\0';
    if (d < o->nsites)
        mr_frame_name(r, &r->sites[o->first_site + d], buf, len);
}

int mr_obj_rename(mr_obj *o, const char *name)
{
    char *copy = strdup(name);
    if (!copy)
        return -1;
    free(o->name);
    o->name = copy;
    return 0;
}

/* Replace object o's name by "NAME<sep>TAIL"; -1 when memory runs out. */
static int append_name(mr_obj *o, const char *sep, const char *tail)
{
    size_t n = strlen(o->name) + strlen(sep) + strlen(tail) + 1;
    char *s = malloc(n);
    if (!s)
        return -1;
    snprintf(s, n, "%s%s%s", o->name, sep, tail);
    free(o->name);
    o->name = s;
    return 0;
}

/* The first caller depth (1 up) at which the frames of group g[0..n)
 * differ, or 0 when none does. */
static uint32_t differing_depth(const memspy_raw *r, const named *g, size_t n)
{
    char first[512], other[512];
    for (uint32_t d = 1; d < MR_MAX_SITES; d++) {
        frame_label(r, &r->objs[g[0].obj], d, first, sizeof first);
        for (size_t i = 1; i < n; i++) {
            frame_label(r, &r->objs[g[i].obj], d, other, sizeof other);
            if (strcmp(first, other) != 0)
                return d;
        }
    }
    return 0;
}

/* Tell the group g[0..n) of one name apart: by its first differing caller
 * frame (members without that frame keep the name), else by number in
 * raw order.  -1 when memory runs out. */
static int separate(memspy_raw *r, const named *g, size_t n)
{
    uint32_t d = differing_depth(r, g, n);
    char tail[512];
    for (size_t i = 0; i < n; i++) {
        mr_obj *o = &r->objs[g[i].obj];
        if (d)
            frame_label(r, o, d, tail, sizeof tail);
        else
            snprintf(tail, sizeof tail, "#%zu", i + 1);
        if (tail[0] && append_name(o, d ? " <- " : " ", tail) != 0)
            return -1;
    }
    return 0;
}

/* One round: every group of equal names separated.  Returns the number
 * of groups found (0: names are unique), -1 when memory runs out. */
static long separate_round(memspy_raw *r, named *all)
{
    for (size_t i = 0; i < r->nobjs; i++)
        all[i] = (named){r->objs[i].name, (uint32_t)i};
    qsort(all, r->nobjs, sizeof *all, by_name);
    long groups = 0;
    for (size_t i = 0, j; i < r->nobjs; i = j) {
        for (j = i + 1; j < r->nobjs && strcmp(all[j].name, all[i].name) == 0; j++)
            ;
        if (j - i > 1) {
            groups++;
            if (separate(r, &all[i], j - i) != 0)
                return -1;
        }
    }
    return groups;
}

/* The object of kind other, memory in no heap block, global or stack, is
 * named MR_OTHER_NAME in reports (the raw file calls it `other`). */
static int name_other_memory(memspy_raw *r)
{
    for (size_t i = 0; i < r->nobjs; i++) {
        mr_obj *o = &r->objs[i];
        if (o->kind == MR_OTHER && strcmp(o->name, "other") == 0 && mr_obj_rename(o, MR_OTHER_NAME) != 0)
            return -1;
    }
    return 0;
}

int mr_unique_names(memspy_raw *r)
{
    if (name_other_memory(r) != 0)
        return -1;
    named *all = malloc((r->nobjs ? r->nobjs : 1) * sizeof *all);
    long groups = all ? 1 : -1;
    for (int round = 0; groups > 0 && round < MAX_ROUNDS; round++)
        groups = separate_round(r, all);
    free(all);
    return groups < 0 ? -1 : 0;
}

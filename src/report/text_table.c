/* text_table.c — aligned text tables (text_table.h). */
#define _GNU_SOURCE /* vasprintf */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/text_table.h"
#include "util/array.h"

void text_table_cell(text_table *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    char **c = array_grow(t->cells, t->ncells, &t->cap, sizeof *c);
    if (!c) {
        t->failed = 1;
        return;
    }
    t->cells = c;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&t->cells[t->ncells], fmt, ap) < 0)
        t->failed = 1;
    else
        t->ncells++;
    va_end(ap);
}

int text_table_print(const text_table *t, FILE *out)
{
    if (t->failed || t->ncols > TEXT_TABLE_MAX_COLUMNS)
        return -1;
    size_t width[TEXT_TABLE_MAX_COLUMNS] = {0}, row_len = 1;
    for (size_t i = 0; i < t->ncells; i++) {
        size_t n = strlen(t->cells[i]);
        if (n > width[i % t->ncols])
            width[i % t->ncols] = n;
    }
    for (size_t c = 0; c < t->ncols; c++)
        row_len += 2 + width[c];
    char *row = malloc(row_len);
    if (!row)
        return -1;
    for (size_t i = 0; i + t->ncols <= t->ncells; i += t->ncols) {
        size_t len = 0;
        for (size_t c = 0; c < t->ncols; c++)
            len += (size_t)sprintf(row + len, t->align[c] == 'r' ? "  %*s" : "  %-*s", (int)width[c], t->cells[i + c]);
        while (len > 0 && row[len - 1] == ' ')
            len--;
        row[len] = '\0';
        fprintf(out, "%s\n", row);
    }
    free(row);
    return 0;
}

void text_table_free(text_table *t)
{
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
}

/* text_table.h — aligned text tables for people (report, diff): cells are
 * filled row by row, then printed with each column as wide as its widest
 * cell, two spaces apart, each row indented by two spaces. */
#ifndef AUGUR_TEXT_TABLE_H
#define AUGUR_TEXT_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TEXT_TABLE_MAX_COLUMNS 64

/* Out of memory while filling is remembered and reported by
 * text_table_print. */
typedef struct text_table {
    size_t ncols;
    char align[TEXT_TABLE_MAX_COLUMNS]; /* per column: 'l' (left) or 'r' (right) */
    size_t ncells, cap;
    char **cells;
    int failed;
} text_table;

/* One more cell, formatted as printf does. */
__attribute__((format(printf, 2, 3))) void text_table_cell(text_table *t, const char *fmt, ...);

/* Print the rows without trailing blanks.  -1 when memory ran out while
 * filling or printing. */
int text_table_print(const text_table *t, FILE *out);

void text_table_free(text_table *t);

#endif

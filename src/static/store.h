/* store.h — the static model in the database's terms (store.c). */
#ifndef AUGUR_STATIC_STORE_H
#define AUGUR_STATIC_STORE_H

#include "db/db.h"
#include "static/static.h"

/* The scopes, unknowns and warnings of the model into *m (strings in p's
 * arena; the caller sets build_id, path, created and augur_version).  A
 * loop's parent is the position of its enclosing loop among m's scopes. */
void sa_store_model(const sa_program *p, const sa_results *r, db_static_model *m);

#endif

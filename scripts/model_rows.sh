#!/usr/bin/env bash
# model_rows.sh — print the stored rows of one model set of an augur database, in a
# form that two fits can be compared by (diff): every column of its models,
# reuse-distance groups, members and parts, row ids made relative to the set's first
# row, reals printed with 17 significant digits (enough to tell any two doubles
# apart) and the models' spread as stored.  Two fits of the same runs by the same code must print the same lines,
# whatever --jobs they ran with (tests/integration/test_model_jobs.sh; bench/model_bench.sh
# --speed compares two builds with it).
# usage: scripts/model_rows.sh DB [SET]      SET: a model_sets.id (default: the newest)
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 DB [SET]" >&2; exit 2; }
db=$1
[ -f "$db" ] || { echo "model_rows: no database $db" >&2; exit 1; }
set_id=${2:-$(sqlite3 "$db" "SELECT max(id) FROM model_sets")}
[[ $set_id =~ ^[0-9]+$ ]] || { echo "model_rows: $db has no model set" >&2; exit 1; }
r() { echo "printf('%!.17g', $1)"; }
sqlite3 -separator '|' "$db" "
WITH m0 AS (SELECT min(id) AS id FROM models WHERE set_id = $set_id),
     g0 AS (SELECT min(id) AS id FROM rd_groups WHERE set_id = $set_id)
SELECT 'model', models.id - m0.id, kind, module, function, file, line, scope, scope_kind, addr, end_addr,
       metric, method, formula, $(r constant), terms, $(r fit_smape), $(r cv_smape), $(r fit_max_rel), points, spread
  FROM models, m0 WHERE set_id = $set_id ORDER BY models.id;
WITH m0 AS (SELECT min(id) AS id FROM models WHERE set_id = $set_id),
     g0 AS (SELECT min(id) AS id FROM rd_groups WHERE set_id = $set_id)
SELECT 'group', g.id - g0.id, block_size, module, loop, strides, cold_model - m0.id, touches_model - m0.id
  FROM rd_groups g, m0, g0 WHERE set_id = $set_id ORDER BY g.id;
WITH g0 AS (SELECT min(id) AS id FROM rd_groups WHERE set_id = $set_id)
SELECT 'member', group_id - g0.id, addr, function, file, line, $(r share)
  FROM rd_members, g0 WHERE group_id IN (SELECT id FROM rd_groups WHERE set_id = $set_id)
 ORDER BY group_id, rowid;
WITH m0 AS (SELECT min(id) AS id FROM models WHERE set_id = $set_id),
     g0 AS (SELECT min(id) AS id FROM rd_groups WHERE set_id = $set_id)
SELECT 'part', group_id - g0.id, position, kind, $(r distance), $(r u_low), $(r u_high),
       fraction_model - m0.id, low_model - m0.id, high_model - m0.id, mean_model - m0.id
  FROM rd_parts, m0, g0 WHERE group_id IN (SELECT id FROM rd_groups WHERE set_id = $set_id)
 ORDER BY group_id, position;"

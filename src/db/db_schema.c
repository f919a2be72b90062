/* db_schema.c — opening the experiment database: creating the schema in a
 * new file, checking the schema version of an existing one, and refusing
 * files that are not augur databases.  The tables are documented column by
 * column in docs/database.md; keep the two in step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/db_internal.h"
#include "structure/structure.h"

#ifndef AUGUR_VERSION
#define AUGUR_VERSION "unknown"
#endif

static const char schema_sql[] =
    "CREATE TABLE meta (\n"
    "  key   TEXT PRIMARY KEY,\n"
    "  value TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE runs (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  started       TEXT NOT NULL,\n"
    "  finished      TEXT NOT NULL,\n"
    "  host          TEXT NOT NULL,\n"
    "  cwd           TEXT NOT NULL,\n"
    "  command       TEXT NOT NULL,\n"
    "  status        TEXT NOT NULL CHECK (status IN ('complete', 'partial')),\n"
    "  status_detail TEXT NOT NULL,\n"
    "  exit_code     INTEGER NOT NULL,\n"
    "  augur_version TEXT NOT NULL,\n"
    "  parent_id     INTEGER REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  phase         TEXT,\n"
    "  sample_rd     REAL CHECK (sample_rd > 0 AND sample_rd < 1)\n"
    ");\n"
    "CREATE TABLE params (\n"
    "  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  name       TEXT NOT NULL,\n"
    "  value      REAL NOT NULL,\n"
    "  value_text TEXT NOT NULL,\n"
    "  PRIMARY KEY (run_id, name)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE block_sizes (\n"
    "  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  block_size INTEGER NOT NULL,\n"
    "  PRIMARY KEY (run_id, block_size)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE processes (\n"
    "  id        INTEGER PRIMARY KEY,\n"
    "  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  position  INTEGER NOT NULL,\n"
    "  pid       INTEGER NOT NULL,\n"
    "  ppid      INTEGER NOT NULL,\n"
    "  exe       TEXT NOT NULL,\n"
    "  args      TEXT NOT NULL,\n"
    "  threads   INTEGER NOT NULL,\n"
    "  exit_code INTEGER,\n"
    "  tool      TEXT NOT NULL,\n"
    "  exe_module_id INTEGER REFERENCES modules(id),\n"
    "  regions   TEXT,\n"
    "  UNIQUE (run_id, position)\n"
    ");\n"
    "CREATE TABLE modules (\n"
    "  id       INTEGER PRIMARY KEY,\n"
    "  path     TEXT NOT NULL,\n"
    "  build_id TEXT NOT NULL,\n"
    "  UNIQUE (path, build_id)\n"
    ");\n"
    "CREATE TABLE process_modules (\n"
    "  process_id INTEGER NOT NULL REFERENCES processes(id) ON DELETE CASCADE,\n"
    "  module_id  INTEGER NOT NULL REFERENCES modules(id),\n"
    "  bias       INTEGER NOT NULL,\n"
    "  PRIMARY KEY (process_id, module_id, bias)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE functions (\n"
    "  id   INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE\n"
    ");\n"
    "CREATE TABLE files (\n"
    "  id   INTEGER PRIMARY KEY,\n"
    "  path TEXT NOT NULL UNIQUE\n"
    ");\n"
    "CREATE TABLE instructions (\n"
    "  id          INTEGER PRIMARY KEY,\n"
    "  process_id  INTEGER NOT NULL REFERENCES processes(id) ON DELETE CASCADE,\n"
    "  module_id   INTEGER REFERENCES modules(id),\n"
    "  addr        INTEGER NOT NULL,\n"
    "  len         INTEGER NOT NULL,\n"
    "  function_id INTEGER REFERENCES functions(id),\n"
    "  file_id     INTEGER REFERENCES files(id),\n"
    "  line        INTEGER,\n"
    "  executions  INTEGER NOT NULL,\n"
    "  reads       INTEGER NOT NULL,\n"
    "  writes      INTEGER NOT NULL,\n"
    "  taken       INTEGER\n"
    ");\n"
    "CREATE INDEX instructions_by_process ON instructions(process_id);\n"
    "CREATE INDEX instructions_by_location ON instructions(module_id, addr);\n"
    "CREATE TABLE branch_targets (\n"
    "  instruction_id INTEGER NOT NULL REFERENCES instructions(id) ON DELETE CASCADE,\n"
    "  module_id      INTEGER REFERENCES modules(id),\n"
    "  addr           INTEGER NOT NULL,\n"
    "  count          INTEGER NOT NULL\n"
    ");\n"
    "CREATE INDEX branch_targets_by_instruction ON branch_targets(instruction_id);\n"
    "CREATE TABLE histograms (\n"
    "  instruction_id INTEGER NOT NULL REFERENCES instructions(id) ON DELETE CASCADE,\n"
    "  block_size     INTEGER NOT NULL,\n"
    "  cold           INTEGER NOT NULL,\n"
    "  touches        INTEGER NOT NULL,\n"
    "  PRIMARY KEY (instruction_id, block_size)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE hist_bins (\n"
    "  instruction_id INTEGER NOT NULL,\n"
    "  block_size     INTEGER NOT NULL,\n"
    "  bin            INTEGER NOT NULL,\n"
    "  count          INTEGER NOT NULL,\n"
    "  sum            INTEGER NOT NULL,\n"
    "  PRIMARY KEY (instruction_id, block_size, bin),\n"
    "  FOREIGN KEY (instruction_id, block_size)\n"
    "    REFERENCES histograms(instruction_id, block_size) ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE rd_bins (\n"
    "  bin  INTEGER PRIMARY KEY,\n"
    "  low  INTEGER NOT NULL,\n"
    "  high NOT NULL\n"
    ");\n"
    "CREATE VIEW run_list AS\n"
    "  SELECT r.id, r.started, r.status, r.status_detail,\n"
    "         (SELECT group_concat(value, ' ') FROM json_each(r.command)) AS command,\n"
    "         (SELECT group_concat(name || '=' || value_text, ' ')\n"
    "            FROM params p WHERE p.run_id = r.id) AS params,\n"
    "         (SELECT count(*) FROM processes p WHERE p.run_id = r.id) AS processes\n"
    "  FROM runs r;\n"
    "CREATE VIEW instruction_info AS\n"
    "  SELECT i.id, p.run_id, i.process_id, p.pid, m.path AS module, m.build_id,\n"
    "         i.addr, printf('%x', i.addr) AS addr_hex, i.len, f.name AS function,\n"
    "         fl.path AS file, i.line, i.executions, i.reads, i.writes,\n"
    "         i.reads + i.writes AS accesses, i.taken\n"
    "  FROM instructions i\n"
    "  JOIN processes p ON p.id = i.process_id\n"
    "  LEFT JOIN modules m ON m.id = i.module_id\n"
    "  LEFT JOIN functions f ON f.id = i.function_id\n"
    "  LEFT JOIN files fl ON fl.id = i.file_id;\n"
    "CREATE VIEW function_totals AS\n"
    "  SELECT p.run_id, f.name AS function, m.path AS module,\n"
    "         count(*) AS static_instructions, sum(i.executions) AS instructions,\n"
    "         sum(i.reads) AS reads, sum(i.writes) AS writes,\n"
    "         sum(i.reads + i.writes) AS accesses\n"
    "  FROM instructions i\n"
    "  JOIN processes p ON p.id = i.process_id\n"
    "  LEFT JOIN functions f ON f.id = i.function_id\n"
    "  LEFT JOIN modules m ON m.id = i.module_id\n"
    "  GROUP BY p.run_id, i.function_id, i.module_id;\n"
    "CREATE VIEW line_totals AS\n"
    "  SELECT p.run_id, fl.path AS file, i.line, f.name AS function,\n"
    "         count(*) AS static_instructions, sum(i.executions) AS instructions,\n"
    "         sum(i.reads) AS reads, sum(i.writes) AS writes,\n"
    "         sum(i.reads + i.writes) AS accesses\n"
    "  FROM instructions i\n"
    "  JOIN processes p ON p.id = i.process_id\n"
    "  LEFT JOIN files fl ON fl.id = i.file_id\n"
    "  LEFT JOIN functions f ON f.id = i.function_id\n"
    "  GROUP BY p.run_id, i.file_id, i.line, i.function_id;\n";

/* Version 2: the static structure of binaries (docs/database.md,
 * "Structure"), keyed by build-id; a version-1 database gains these tables
 * when a version-2 augur opens it for writing. */
static const char structure_schema_sql[] =
    "CREATE TABLE binaries (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  key           TEXT NOT NULL UNIQUE,\n"
    "  build_id      TEXT NOT NULL,\n"
    "  path          TEXT NOT NULL,\n"
    "  stripped      INTEGER NOT NULL,\n"
    "  has_dwarf     INTEGER NOT NULL,\n"
    "  text_bytes    INTEGER NOT NULL,\n"
    "  functions     INTEGER NOT NULL,\n"
    "  instructions  INTEGER NOT NULL,\n"
    "  loops         INTEGER NOT NULL,\n"
    "  warnings      TEXT NOT NULL,\n"
    "  analysed      TEXT NOT NULL,\n"
    "  augur_version TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE instruction_classes (\n"
    "  id   INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL UNIQUE\n"
    ");\n"
    "CREATE TABLE scopes (\n"
    "  binary_id  INTEGER NOT NULL REFERENCES binaries(id) ON DELETE CASCADE,\n"
    "  id         INTEGER NOT NULL,\n"
    "  parent     INTEGER,\n"
    "  kind       TEXT NOT NULL CHECK (kind IN ('module', 'function', 'inlined', 'loop')),\n"
    "  name       TEXT NOT NULL,\n"
    "  file       TEXT,\n"
    "  first_line INTEGER,\n"
    "  last_line  INTEGER,\n"
    "  entry_addr INTEGER NOT NULL,\n"
    "  folded     INTEGER NOT NULL,\n"
    "  call_file  TEXT,\n"
    "  call_line  INTEGER,\n"
    "  PRIMARY KEY (binary_id, id)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE static_instructions (\n"
    "  binary_id INTEGER NOT NULL REFERENCES binaries(id) ON DELETE CASCADE,\n"
    "  addr      INTEGER NOT NULL,\n"
    "  len       INTEGER NOT NULL,\n"
    "  scope     INTEGER NOT NULL,\n"
    "  line      INTEGER,\n"
    "  class     INTEGER NOT NULL REFERENCES instruction_classes(id),\n"
    "  width     INTEGER NOT NULL,\n"
    "  elem_bits INTEGER NOT NULL,\n"
    "  flops     INTEGER NOT NULL,\n"
    "  loads     INTEGER NOT NULL,\n"
    "  stores    INTEGER NOT NULL,\n"
    "  PRIMARY KEY (binary_id, addr)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE loop_edges (\n"
    "  binary_id INTEGER NOT NULL REFERENCES binaries(id) ON DELETE CASCADE,\n"
    "  scope     INTEGER NOT NULL,\n"
    "  kind      TEXT NOT NULL CHECK (kind IN ('header', 'back_taken', 'back_fallthrough', 'back_always')),\n"
    "  addr      INTEGER NOT NULL\n"
    ");\n"
    "CREATE INDEX loop_edges_by_addr ON loop_edges(binary_id, addr);\n"
    "CREATE TABLE memory_operands (\n"
    "  binary_id INTEGER NOT NULL REFERENCES binaries(id) ON DELETE CASCADE,\n"
    "  addr      INTEGER NOT NULL,\n"
    "  operand   INTEGER NOT NULL,\n"
    "  access    TEXT NOT NULL CHECK (access IN ('read', 'write', 'read-write')),\n"
    "  size      INTEGER NOT NULL,\n"
    "  formula   TEXT NOT NULL,\n"
    "  loops     TEXT NOT NULL,\n"
    "  strides   TEXT NOT NULL,\n"
    "  PRIMARY KEY (binary_id, addr, operand)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE registers (\n"
    "  id   INTEGER PRIMARY KEY,\n"
    "  name TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE dependences (\n"
    "  binary_id  INTEGER NOT NULL REFERENCES binaries(id) ON DELETE CASCADE,\n"
    "  use_addr   INTEGER NOT NULL,\n"
    "  def_addr   INTEGER NOT NULL,\n"
    "  reg        INTEGER NOT NULL REFERENCES registers(id),\n"
    "  carried_by INTEGER,\n"
    "  PRIMARY KEY (binary_id, use_addr, def_addr, reg)\n"
    ") WITHOUT ROWID;\n"
    "CREATE VIEW scope_list AS\n"
    "  SELECT b.build_id, b.path AS binary, s.id, s.parent, s.kind, s.name, s.file,\n"
    "         s.first_line, s.last_line, printf('%x', s.entry_addr) AS entry_hex, s.folded\n"
    "  FROM scopes s JOIN binaries b ON b.id = s.binary_id;\n";

/* Version 9: the compilation units of each analysed binary, by which
 * builds of one program are compared and matched (docs/database.md,
 * "binary_units").  IF NOT EXISTS: created by the upgrade of any older
 * version, whichever tables it had. */
static const char units_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS binary_units (\n"
    "  binary_id INTEGER NOT NULL REFERENCES binaries(id) ON DELETE CASCADE,\n"
    "  position  INTEGER NOT NULL,\n"
    "  file      TEXT NOT NULL,\n"
    "  producer  TEXT NOT NULL,\n"
    "  PRIMARY KEY (binary_id, position)\n"
    ") WITHOUT ROWID;\n";

/* Version 11: the intervals of a run (docs/database.md, "intervals"), each
 * process of an interval run with what closed it.  IF NOT EXISTS: created
 * by the upgrade of any older version. */
static const char intervals_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS intervals (\n"
    "  process_id  INTEGER PRIMARY KEY REFERENCES processes(id) ON DELETE CASCADE,\n"
    "  first       INTEGER NOT NULL,\n"
    "  count       INTEGER NOT NULL,\n"
    "  closed_by   TEXT NOT NULL CHECK (closed_by IN ('call', 'dump', 'end')),\n"
    "  module_id   INTEGER REFERENCES modules(id),\n"
    "  addr        INTEGER NOT NULL,\n"
    "  function_id INTEGER REFERENCES functions(id),\n"
    "  file_id     INTEGER REFERENCES files(id),\n"
    "  line        INTEGER\n"
    ");\n"
    "CREATE INDEX IF NOT EXISTS runs_by_parent ON runs(parent_id);\n";

/* Version 15: MPI runs (docs/database.md, "MPI runs"): one row per run
 * of an MPI launch, one per rank stored, and the ranks' MPI calls.
 * IF NOT EXISTS: created by the upgrade of any older version. */
static const char mpi_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS mpi_runs (\n"
    "  run_id  INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  launch  TEXT UNIQUE,\n"
    "  size    INTEGER NOT NULL CHECK (size >= 1)\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS mpi_ranks (\n"
    "  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  rank          INTEGER NOT NULL,\n"
    "  process_id    INTEGER NOT NULL REFERENCES processes(id) ON DELETE CASCADE,\n"
    "  status        TEXT NOT NULL CHECK (status IN ('complete', 'partial')),\n"
    "  status_detail TEXT NOT NULL,\n"
    "  exit_code     INTEGER NOT NULL,\n"
    "  PRIMARY KEY (run_id, rank)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS comm (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  process_id     INTEGER NOT NULL REFERENCES processes(id) ON DELETE CASCADE,\n"
    "  function_id    INTEGER NOT NULL REFERENCES functions(id),\n"
    "  peer           INTEGER,\n"
    "  communicator   INTEGER,\n"
    "  interval       INTEGER,\n"
    "  calls          INTEGER NOT NULL,\n"
    "  bytes_sent     INTEGER NOT NULL,\n"
    "  bytes_received INTEGER NOT NULL,\n"
    "  file_id        INTEGER REFERENCES files(id),\n"
    "  line           INTEGER,\n"
    "  stack          TEXT NOT NULL\n"
    ");\n"
    "CREATE INDEX IF NOT EXISTS comm_by_process ON comm(process_id);\n";

/* Version 3: model sets fitted by `augur model` (docs/database.md,
 * "Models"); older databases gain these tables when opened for writing. */
static const char model_schema_sql[] =
    "CREATE TABLE model_sets (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  created       TEXT NOT NULL,\n"
    "  program       TEXT NOT NULL,\n"
    "  params        TEXT NOT NULL,\n"
    "  ranges        TEXT NOT NULL,\n"
    "  runs          TEXT NOT NULL,\n"
    "  basis         TEXT NOT NULL,\n"
    "  block_sizes   TEXT NOT NULL,\n"
    "  augur_version TEXT NOT NULL,\n"
    "  rd_method     INTEGER NOT NULL DEFAULT 1,\n"
    "  builds        TEXT,\n"
    "  unmatched     TEXT,\n"
    "  parent_id     INTEGER REFERENCES model_sets(id) ON DELETE CASCADE,\n"
    "  phase         TEXT\n"
    ");\n"
    "CREATE TABLE models (\n"
    "  id          INTEGER PRIMARY KEY,\n"
    "  set_id      INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,\n"
    "  kind        TEXT NOT NULL CHECK (kind IN ('total', 'function', 'line', 'scope', 'block', 'rd')),\n"
    "  module      TEXT,\n"
    "  function    TEXT,\n"
    "  file        TEXT,\n"
    "  line        INTEGER,\n"
    "  scope       INTEGER,\n"
    "  scope_kind  TEXT,\n"
    "  addr        INTEGER,\n"
    "  end_addr    INTEGER,\n"
    "  metric      TEXT NOT NULL,\n"
    "  method      TEXT NOT NULL,\n"
    "  formula     TEXT NOT NULL,\n"
    "  constant    REAL NOT NULL,\n"
    "  terms       TEXT NOT NULL,\n"
    "  fit_smape   REAL NOT NULL,\n"
    "  cv_smape    REAL NOT NULL,\n"
    "  fit_max_rel REAL NOT NULL,\n"
    "  points      INTEGER NOT NULL,\n"
    "  spread      TEXT\n"
    ");\n"
    "CREATE INDEX models_by_set ON models(set_id, kind);\n"
    "CREATE TABLE rd_groups (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  set_id        INTEGER NOT NULL REFERENCES model_sets(id) ON DELETE CASCADE,\n"
    "  block_size    INTEGER NOT NULL,\n"
    "  module        TEXT,\n"
    "  loop          INTEGER,\n"
    "  strides       TEXT,\n"
    "  cold_model    INTEGER NOT NULL REFERENCES models(id),\n"
    "  touches_model INTEGER NOT NULL REFERENCES models(id),\n"
    "  stride_model  INTEGER REFERENCES models(id),\n"
    "  run_model     INTEGER REFERENCES models(id)\n"
    ");\n"
    "CREATE INDEX rd_groups_by_set ON rd_groups(set_id, block_size);\n"
    "CREATE TABLE rd_members (\n"
    "  group_id INTEGER NOT NULL REFERENCES rd_groups(id) ON DELETE CASCADE,\n"
    "  addr     INTEGER NOT NULL,\n"
    "  function TEXT,\n"
    "  file     TEXT,\n"
    "  line     INTEGER,\n"
    "  share    REAL NOT NULL\n"
    ");\n"
    "CREATE INDEX rd_members_by_group ON rd_members(group_id);\n"
    "CREATE TABLE rd_parts (\n"
    "  group_id       INTEGER NOT NULL REFERENCES rd_groups(id) ON DELETE CASCADE,\n"
    "  position       INTEGER NOT NULL,\n"
    "  kind           TEXT NOT NULL CHECK (kind IN ('lead', 'slice')),\n"
    "  distance       REAL,\n"
    "  u_low          REAL,\n"
    "  u_high         REAL,\n"
    "  fraction_model INTEGER REFERENCES models(id),\n"
    "  low_model      INTEGER REFERENCES models(id),\n"
    "  high_model     INTEGER REFERENCES models(id),\n"
    "  mean_model     INTEGER REFERENCES models(id),\n"
    "  PRIMARY KEY (group_id, position)\n"
    ") WITHOUT ROWID;\n";

/* Version 8: calls, counted per call instruction and callee (the first
 * instruction of the function the call entered, of the same process);
 * older databases gain the table, empty, when opened. */
static const char call_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS call_edges (\n"
    "  call_id   INTEGER NOT NULL REFERENCES instructions(id) ON DELETE CASCADE,\n"
    "  callee_id INTEGER NOT NULL REFERENCES instructions(id) ON DELETE CASCADE,\n"
    "  count     INTEGER NOT NULL,\n"
    "  PRIMARY KEY (call_id, callee_id)\n"
    ") WITHOUT ROWID;\n";

/* Version 10: each instruction's dominant address delta (the collector's
 * `stride` lines, docs/profile-format.md); older databases gain the table,
 * empty for their runs. */
static const char stride_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS strides (\n"
    "  instruction_id INTEGER PRIMARY KEY REFERENCES instructions(id) ON DELETE CASCADE,\n"
    "  delta          INTEGER NOT NULL,\n"
    "  count          INTEGER NOT NULL,\n"
    "  deltas         INTEGER NOT NULL\n"
    ");\n";

/* Version 17: each instruction's address deltas by 2-adic class (the pairs
 * of the collector's `stride` lines from profile version 7); older
 * databases gain the table, empty for their runs. */
static const char pow2_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS stride_pow2 (\n"
    "  instruction_id INTEGER NOT NULL REFERENCES instructions(id) ON DELETE CASCADE,\n"
    "  shift          INTEGER NOT NULL,\n"
    "  count          INTEGER NOT NULL,\n"
    "  PRIMARY KEY (instruction_id, shift)\n"
    ") WITHOUT ROWID;\n";

/* Version 18: set-local histograms (the collector's `set-count` and `sets`
 * lines from profile version 8): the set counts of each run, and per
 * instruction and set count its far touches and bins (distances below
 * `ways`, in rd.h's bins); older databases gain the tables, empty. */
static const char sets_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS set_counts (\n"
    "  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  sets      INTEGER NOT NULL,\n"
    "  line_size INTEGER NOT NULL,\n"
    "  ways      INTEGER NOT NULL,\n"
    "  PRIMARY KEY (run_id, sets)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS set_histograms (\n"
    "  instruction_id INTEGER NOT NULL REFERENCES instructions(id) ON DELETE CASCADE,\n"
    "  sets           INTEGER NOT NULL,\n"
    "  far            INTEGER NOT NULL,\n"
    "  touches        INTEGER NOT NULL,\n"
    "  PRIMARY KEY (instruction_id, sets)\n"
    ") WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS set_bins (\n"
    "  instruction_id INTEGER NOT NULL,\n"
    "  sets           INTEGER NOT NULL,\n"
    "  bin            INTEGER NOT NULL,\n"
    "  count          INTEGER NOT NULL,\n"
    "  sum            INTEGER NOT NULL,\n"
    "  PRIMARY KEY (instruction_id, sets, bin),\n"
    "  FOREIGN KEY (instruction_id, sets)\n"
    "    REFERENCES set_histograms(instruction_id, sets) ON DELETE CASCADE\n"
    ") WITHOUT ROWID;\n";

/* Version 14: the static models of `augur static --db` (docs/database.md,
 * "Static models"), one per build-id, each with its scopes' formulas.
 * IF NOT EXISTS: created by the upgrade of any older version. */
static const char static_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS static_models (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  build_id      TEXT NOT NULL UNIQUE,\n"
    "  path          TEXT NOT NULL,\n"
    "  created       TEXT NOT NULL,\n"
    "  augur_version TEXT NOT NULL,\n"
    "  unknowns      TEXT NOT NULL,\n"
    "  warnings      TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE IF NOT EXISTS static_scopes (\n"
    "  model_id   INTEGER NOT NULL REFERENCES static_models(id) ON DELETE CASCADE,\n"
    "  position   INTEGER NOT NULL,\n"
    "  kind       TEXT NOT NULL CHECK (kind IN ('function', 'loop')),\n"
    "  function   TEXT NOT NULL,\n"
    "  file       TEXT NOT NULL,\n"
    "  first_line INTEGER NOT NULL,\n"
    "  last_line  INTEGER NOT NULL,\n"
    "  parent     INTEGER,\n"
    "  unknowns   TEXT NOT NULL,\n"
    "  formulas   TEXT NOT NULL,\n"
    "  forms      TEXT NOT NULL,\n"
    "  binary_loops TEXT NOT NULL DEFAULT '[]',\n"
    "  PRIMARY KEY (model_id, position)\n"
    ") WITHOUT ROWID;\n";

static const char *class_name(int c)
{
    return st_class_name((enum st_class)c);
}

static const char *reg_name(int r)
{
    return st_reg_name((uint8_t)r);
}

/* Fill a lookup table (id, name) with ids 0 .. n-1 and their names. */
static int fill_names(db *d, const char *insert, int n, const char *(*name)(int), char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, insert, &st, "create the schema", err, errlen) != 0)
        return -1;
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        sqlite3_bind_int(st, 1, k);
        sqlite3_bind_text(st, 2, name(k), -1, SQLITE_STATIC);
        rc = db_step_done(d, st, "create the schema", err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

/* The version-2 additions, to a new database or a version-1 one. */
static int create_structure_schema(db *d, char *err, size_t errlen)
{
    if (db_exec(d, structure_schema_sql, "create the schema", err, errlen) != 0 ||
        fill_names(d, "INSERT INTO instruction_classes (id, name) VALUES (?, ?)", ST_CLASS_COUNT, class_name, err,
                   errlen) != 0 ||
        fill_names(d, "INSERT INTO registers (id, name) VALUES (?, ?)", ST_REG_COUNT, reg_name, err, errlen) != 0)
        return -1;
    return 0;
}

/* Record that the schema is now DB_SCHEMA_VERSION. */
static int set_version(db *d, char *err, size_t errlen)
{
    char meta[128];
    snprintf(meta, sizeof meta, "UPDATE meta SET value = '%d' WHERE key = 'schema_version';", DB_SCHEMA_VERSION);
    return db_exec(d, meta, "create the schema", err, errlen);
}

/* Fill rd_bins with the distance range of every histogram bin. */
static int fill_rd_bins(db *d, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "INSERT INTO rd_bins (bin, low, high) VALUES (?, ?, ?)", &st, "create the schema", err,
                   errlen) != 0)
        return -1;
    int rc = 0;
    for (unsigned b = 0; b < RD_MAX_BINS && rc == 0; b++) {
        sqlite3_bind_int(st, 1, (int)b);
        db_bind_u64(st, 2, rd_bin_low(b));
        db_bind_u64(st, 3, rd_bin_high(b)); /* the last bin's 2^64 saturates; stored as REAL 2^64 */
        rc = db_step_done(d, st, "create the schema", err, errlen);
    }
    sqlite3_finalize(st);
    return rc;
}

static int create_schema(db *d, char *err, size_t errlen)
{
    char meta[256];
    snprintf(meta, sizeof meta,
             "INSERT INTO meta (key, value) VALUES ('schema_version', '%d'), ('created_by', 'augur %s');",
             DB_SCHEMA_VERSION, AUGUR_VERSION);
    if (db_exec(d, schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, meta, "create the schema", err, errlen) != 0 || fill_rd_bins(d, err, errlen) != 0)
        return -1;
    if (create_structure_schema(d, err, errlen) != 0 ||
        db_exec(d, units_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, model_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, call_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, stride_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, pow2_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, sets_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, intervals_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, mpi_schema_sql, "create the schema", err, errlen) != 0 ||
        db_exec(d, static_schema_sql, "create the schema", err, errlen) != 0)
        return -1;
    return set_version(d, err, errlen);
}

/* The value of a single-integer query; -1 on error. */
static int query_int(db *d, const char *sql, int64_t *out, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, sql, &st, "read the database", err, errlen) != 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : db_fail(d, "read the database", err, errlen);
}

/* The schema version: 0 for an empty database; -1 with a message when the
 * file is not an augur database. */
static int read_version(db *d, int64_t *version, char *err, size_t errlen)
{
    int64_t has_meta = 0, tables = 0; /* initialised for gcc -O3, which cannot see query_int set them */
    if (query_int(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'", &has_meta, err,
                  errlen) != 0 ||
        query_int(d, "SELECT count(*) FROM sqlite_master", &tables, err, errlen) != 0)
        return -1;
    if (!has_meta) {
        if (tables == 0) {
            *version = 0;
            return 0;
        }
        snprintf(err, errlen,
                 "%s is an SQLite database but not an augur database (it has no meta table): choose another file "
                 "with --db",
                 d->path);
        return -1;
    }
    *version = -1;
    if (query_int(d,
                  "SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema_version'), -1)",
                  version, err, errlen) != 0)
        return -1;
    if (*version <= 0) {
        snprintf(err, errlen, "%s has no schema version in its meta table: it is damaged or not an augur database",
                 d->path);
        return -1;
    }
    return 0;
}

/* Run `alter` unless `table` has `column` already (a database upgraded
 * before, or made with it). */
static int add_column(db *d, const char *table, const char *column, const char *alter, char *err, size_t errlen)
{
    char sql[256];
    int64_t has = 0;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'", table, column);
    if (query_int(d, sql, &has, err, errlen) != 0)
        return -1;
    return has ? 0 : db_exec(d, alter, "upgrade the schema", err, errlen);
}

/* Version 5's processes.exe_module_id, added to an older database (NULL in
 * its rows: db_run_modules then resolves the executable when asked). */
static int add_exe_module_column(db *d, char *err, size_t errlen)
{
    return add_column(d, "processes", "exe_module_id",
                      "ALTER TABLE processes ADD COLUMN exe_module_id INTEGER REFERENCES modules(id)", err, errlen);
}

/* Version 6 names instruction class 0 `load_store` (loads and stores with
 * no arithmetic), which versions 2 to 5 called `none`: in the class table
 * and in the per-class metrics of stored model sets, so that old sets are
 * read, and queried, under the new name. */
static int rename_load_store(db *d, int64_t version, char *err, size_t errlen)
{
    if (version >= 2 && db_exec(d, "UPDATE instruction_classes SET name = 'load_store' WHERE id = 0 AND name = 'none'",
                                "upgrade the schema", err, errlen) != 0)
        return -1;
    return version >= 3 ? db_exec(d, "UPDATE models SET metric = 'class:load_store' WHERE metric = 'class:none'",
                                  "upgrade the schema", err, errlen)
                        : 0;
}

/* Version 7's models.spread, added to an older database that has the
 * model tables (NULL in its rows: no alternatives known). */
static int add_spread_column(db *d, char *err, size_t errlen)
{
    return add_column(d, "models", "spread", "ALTER TABLE models ADD COLUMN spread TEXT", err, errlen);
}

/* Version 9's model_sets.builds and unmatched, added to an older database
 * that has the model tables (NULL in its rows: sets of one build). */
static int add_builds_columns(db *d, char *err, size_t errlen)
{
    return add_column(d, "model_sets", "builds",
                      "ALTER TABLE model_sets ADD COLUMN builds TEXT; ALTER TABLE model_sets ADD COLUMN unmatched TEXT",
                      err, errlen);
}

/* Version 10's rd_groups.stride_model and run_model, added to an older
 * database that has the model tables (NULL in its rows: no walk model). */
static int add_walk_columns(db *d, char *err, size_t errlen)
{
    return add_column(d, "rd_groups", "stride_model",
                      "ALTER TABLE rd_groups ADD COLUMN stride_model INTEGER REFERENCES models(id);"
                      "ALTER TABLE rd_groups ADD COLUMN run_model INTEGER REFERENCES models(id)",
                      err, errlen);
}

/* Version 11's columns (runs.parent_id and phase, processes.regions;
 * NULL in old rows: runs counted whole) and the intervals table, added to
 * an older database. */
static int add_regions_schema(db *d, char *err, size_t errlen)
{
    if (add_column(d, "runs", "parent_id",
                   "ALTER TABLE runs ADD COLUMN parent_id INTEGER REFERENCES runs(id) ON DELETE CASCADE", err,
                   errlen) != 0 ||
        add_column(d, "runs", "phase", "ALTER TABLE runs ADD COLUMN phase TEXT", err, errlen) != 0 ||
        add_column(d, "processes", "regions", "ALTER TABLE processes ADD COLUMN regions TEXT", err, errlen) != 0)
        return -1;
    return db_exec(d, intervals_schema_sql, "upgrade the schema", err, errlen);
}

/* Version 12's model_sets.parent_id and phase, added to an older database
 * that has the model tables (NULL in its rows: sets of whole runs). */
static int add_phase_columns(db *d, char *err, size_t errlen)
{
    return add_column(d, "model_sets", "phase",
                      "ALTER TABLE model_sets ADD COLUMN parent_id INTEGER REFERENCES model_sets(id) ON DELETE "
                      "CASCADE; ALTER TABLE model_sets ADD COLUMN phase TEXT",
                      err, errlen);
}

/* Version 13's runs.sample_rd (NULL in old rows: every block measured). */
static int add_sample_column(db *d, char *err, size_t errlen)
{
    return add_column(d, "runs", "sample_rd",
                      "ALTER TABLE runs ADD COLUMN sample_rd REAL CHECK (sample_rd > 0 AND sample_rd < 1)", err,
                      errlen);
}

/* Version 16's static_scopes.binary_loops ('[]' in old rows: models stored
 * before it pair no loop with a measured one until stored again). */
static int add_binary_loops_column(db *d, char *err, size_t errlen)
{
    return add_column(d, "static_scopes", "binary_loops",
                      "ALTER TABLE static_scopes ADD COLUMN binary_loops TEXT NOT NULL DEFAULT '[]'", err, errlen);
}

/* Create the schema in an empty database, or upgrade an older one.  In a
 * transaction that re-reads the version, so that two processes creating or
 * upgrading the same database at the same time do it once. */
static int initialise(db *d, int64_t *version, char *err, size_t errlen)
{
    if (db_exec(d, "BEGIN IMMEDIATE", "create the schema", err, errlen) != 0)
        return -1;
    int rc = read_version(d, version, err, errlen);
    if (rc == 0 && *version == 0)
        rc = create_schema(d, err, errlen);
    if (rc == 0 && *version == 1) /* version 2 added the structure tables */
        rc = create_structure_schema(d, err, errlen);
    if (rc == 0 && *version == 3) /* version 4 marks how a set's histogram models read */
        rc = db_exec(d, "ALTER TABLE model_sets ADD COLUMN rd_method INTEGER NOT NULL DEFAULT 1", "upgrade the schema",
                     err, errlen);
    if (rc == 0 && *version >= 1 && *version < 5) /* version 5 names each process's executable module */
        rc = add_exe_module_column(d, err, errlen);
    if (rc == 0 && *version >= 3 && *version < 7) /* version 7 keeps each model's spread */
        rc = add_spread_column(d, err, errlen);
    if (rc == 0 && *version >= 3 && *version < 9) /* version 9 keeps the builds of a set */
        rc = add_builds_columns(d, err, errlen);
    if (rc == 0 && *version >= 3 && *version < 10) /* version 10 models each group's stride */
        rc = add_walk_columns(d, err, errlen);
    if (rc == 0 && *version >= 3 && *version < 12) /* version 12 models each phase of the runs */
        rc = add_phase_columns(d, err, errlen);
    if (rc == 0 && *version >= 1 && *version < 3) /* version 3 added the model tables */
        rc = db_exec(d, model_schema_sql, "create the schema", err, errlen);
    if (rc == 0 && *version >= 1 && *version < 9) /* version 9 added the compilation units */
        rc = db_exec(d, units_schema_sql, "upgrade the schema", err, errlen);
    if (rc == 0 && *version >= 1 && *version < 6) /* version 6 renamed class none */
        rc = rename_load_store(d, *version, err, errlen);
    if (rc == 0 && *version >= 1 && *version < 8) /* version 8 added the call edges */
        rc = db_exec(d, call_schema_sql, "upgrade the schema", err, errlen);
    if (rc == 0 && *version >= 1 && *version < 10) /* version 10 keeps each instruction's stride */
        rc = db_exec(d, stride_schema_sql, "upgrade the schema", err, errlen);
    if (rc == 0 && *version >= 1 && *version < 11) /* version 11 added regions and intervals */
        rc = add_regions_schema(d, err, errlen);
    if (rc == 0 && *version >= 1 && *version < 13) /* version 13 records sampled histograms */
        rc = add_sample_column(d, err, errlen);
    if (rc == 0 && *version >= 1 && *version < 14) /* version 14 added the static models */
        rc = db_exec(d, static_schema_sql, "upgrade the schema", err, errlen);
    if (rc == 0 && *version >= 1 && *version < 15) /* version 15 added MPI runs */
        rc = db_exec(d, mpi_schema_sql, "upgrade the schema", err, errlen);
    if (rc == 0 && *version >= 14 && *version < 16) /* version 16 keeps the join's binary loops */
        rc = add_binary_loops_column(d, err, errlen);
    if (rc == 0 && *version >= 1 && *version < 17) /* version 17 keeps the deltas' 2-adic classes */
        rc = db_exec(d, pow2_schema_sql, "upgrade the schema", err, errlen);
    if (rc == 0 && *version >= 1 && *version < 18) /* version 18 keeps set-local histograms */
        rc = db_exec(d, sets_schema_sql, "upgrade the schema", err, errlen);
    if (rc == 0 && *version >= 1 && *version < DB_SCHEMA_VERSION)
        rc = set_version(d, err, errlen);
    if (rc == 0 && *version < DB_SCHEMA_VERSION)
        *version = DB_SCHEMA_VERSION;
    if (rc == 0)
        rc = db_exec(d, "COMMIT", "create the schema", err, errlen);
    if (rc != 0)
        sqlite3_exec(d->sql, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* Bring the schema to DB_SCHEMA_VERSION (creating it in an empty database
 * when `create`) or refuse the database. */
static int check_schema(db *d, int create, char *err, size_t errlen)
{
    int64_t version;
    if (read_version(d, &version, err, errlen) != 0)
        return -1;
    if (version == 0 && !create) {
        snprintf(err, errlen,
                 "%s is empty, not an augur database: remove it (`augur collect --db %s -- PROGRAM` then creates the "
                 "database) or choose another file with --db",
                 d->path, d->path);
        return -1;
    }
    if (version < DB_SCHEMA_VERSION && initialise(d, &version, err, errlen) != 0)
        return -1;
    if (version > DB_SCHEMA_VERSION) {
        snprintf(err, errlen,
                 "%s has schema version %lld, newer than this augur understands (%d): use a newer augur (the one "
                 "that wrote it)",
                 d->path, (long long)version, DB_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

/* Open the SQLite connection, with messages for the usual mistakes. */
static int connect(db *d, int create, char *err, size_t errlen)
{
    struct stat st;
    int exists = stat(d->path, &st) == 0;
    if (!exists && !create) {
        snprintf(err, errlen, "no database %s: run `augur collect --db %s -- PROGRAM` first, or give another --db",
                 d->path, d->path);
        return -1;
    }
    /* NOMUTEX: a connection is used by one thread, so SQLite need not lock it. */
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(d->path, &d->sql, flags, NULL) != SQLITE_OK) {
        int e = d->sql ? sqlite3_system_errno(d->sql) : 0;
        snprintf(err, errlen,
                 "cannot %s the database %s: %s%s%s (check that its directory exists and is writable, or choose "
                 "another file with --db or $AUGUR_DB)",
                 exists ? "open" : "create", d->path, d->sql ? sqlite3_errmsg(d->sql) : "out of memory",
                 e ? ": " : "", e ? strerror(e) : "");
        return -1;
    }
    sqlite3_extended_result_codes(d->sql, 1);
    sqlite3_busy_timeout(d->sql, DB_BUSY_TIMEOUT_MS);
    if (create && sqlite3_db_readonly(d->sql, "main") == 1) {
        snprintf(err, errlen, "the database %s is read-only: make it writable (chmod u+w) or choose another file "
                              "with --db", d->path);
        return -1;
    }
    /* Foreign keys are declared for readers and for cascading deletes, but
     * not enforced here (SQLite's default): the importer writes consistent
     * rows, and checking each one would double the import time. */
    return 0;
}

int db_open(const char *path, int create, db **out, char *err, size_t errlen)
{
    *out = NULL;
    db *d = calloc(1, sizeof *d);
    if (!d || !(d->path = strdup(path))) {
        free(d);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    if (connect(d, create, err, errlen) != 0 || check_schema(d, create, err, errlen) != 0) {
        db_close(d);
        return -1;
    }
    *out = d;
    return 0;
}

/* The first row of SQLite's quick_check of d ("ok" when it found nothing)
 * into out[len]; -1 when the check itself fails (message in err). */
static int quick_check(db *d, char *out, size_t len, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "PRAGMA quick_check(1)", &st, "check the database", err, errlen) != 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
        for (char *nl = strchr(out, '\n'); nl; nl = strchr(nl, '\n'))
            *nl = ' '; /* one line: "*** in database main *** Page 16: ..." */
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : db_fail(d, "check the database", err, errlen);
}

/* The first table.column of the current schema that d lacks, "" when it
 * has them all, into out[len]: the schema is made in an in-memory
 * database, which then attaches d's file and compares. */
static int missing_column(db *d, char *out, size_t len, char *err, size_t errlen)
{
    static const char compare[] =
        "SELECT m.name || '.' || c.name FROM main.sqlite_master m JOIN pragma_table_info(m.name, 'main') c "
        "WHERE m.type = 'table' AND c.name NOT IN (SELECT name FROM pragma_table_info(m.name, 'file')) LIMIT 1";
    db mem = {NULL, d->path}; /* messages name d's file */
    sqlite3_stmt *st = NULL;
    char *attach = NULL;
    int rc = -1;
    if (sqlite3_open(":memory:", &mem.sql) != SQLITE_OK ||
        !(attach = sqlite3_mprintf("ATTACH DATABASE %Q AS file", d->path)))
        snprintf(err, errlen, "%s: cannot check the schema: out of memory", d->path);
    else if (create_schema(&mem, err, errlen) == 0 && db_exec(&mem, attach, "check the schema", err, errlen) == 0 &&
             db_prepare(&mem, compare, &st, "check the schema", err, errlen) == 0) {
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW || step == SQLITE_DONE) {
            snprintf(out, len, "%s", step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : "");
            rc = 0;
        } else
            db_fail(&mem, "check the schema", err, errlen);
    }
    sqlite3_free(attach);
    sqlite3_finalize(st);
    sqlite3_close(mem.sql);
    return rc;
}

int db_check(db *d, char *err, size_t errlen)
{
    char found[512];
    if (quick_check(d, found, sizeof found, err, errlen) != 0)
        return -1;
    if (strcmp(found, "ok") != 0) {
        snprintf(err, errlen, "%s is damaged: SQLite's quick_check found: %s (restore it from a copy, or give "
                 "another --db)", d->path, found);
        return -1;
    }
    if (missing_column(d, found, sizeof found, err, errlen) != 0)
        return -1;
    if (found[0]) {
        snprintf(err, errlen, "%s is damaged: its schema lacks %s, which augur's has (restore it from a copy, or give "
                 "another --db)", d->path, found);
        return -1;
    }
    return 0;
}

void db_close(db *d)
{
    if (!d)
        return;
    sqlite3_close(d->sql);
    free(d->path);
    free(d);
}

const char *db_path(const db *d)
{
    return d->path;
}

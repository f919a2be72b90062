/* commands.h — the subcommands of the `augur` command, one file each in src/cli/.
 *
 * Each takes the arguments after the subcommand name (argv[0] is the
 * subcommand) and returns the process exit status. */
#ifndef AUGUR_COMMANDS_H
#define AUGUR_COMMANDS_H

int cmd_collect(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_structure(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_machine(int argc, char **argv);
int cmd_memspy(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_explore(int argc, char **argv);
int cmd_static(int argc, char **argv);

/* The database used when --db is not given: $AUGUR_DB, else "augur.db". */
const char *default_db_path(void);

#endif

/* SPDX-License-Identifier: LGPL-2.1 */
/* The kmtrace binary's subcommands. */
#ifndef KMT_CMD_H
#define KMT_CMD_H

/* Exit statuses: 0 ok, 1 could not do it (tracefs, system), 2 bad input or usage. */
#define KMT_EXIT_FAIL	1
#define KMT_EXIT_INPUT	2

/* kmtrace record: argv[0] is "record". Returns the exit status. */
int kmt_cmd_record(int argc, char **argv);

/* kmtrace report: argv[0] is "report". Returns the exit status. */
int kmt_cmd_report(int argc, char **argv);

#endif /* KMT_CMD_H */

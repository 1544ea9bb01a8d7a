/* The subcommands of xlang_c; each takes the arguments after its name and returns the
   exit status (0, or 1 after one line on stderr). */
#ifndef QUEUEY_XLANG_COMMANDS_H
#define QUEUEY_XLANG_COMMANDS_H

int xlang_enqueue(int argc, char **argv);
int xlang_work(int argc, char **argv);
int xlang_dead(int argc, char **argv);
int xlang_get(int argc, char **argv);
int xlang_codec(int argc, char **argv);
int xlang_schedule(int argc, char **argv);

#endif

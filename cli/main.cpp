// queuey: the command-line tool (issue 12), built on the public C++ API (queuey.hpp) only.
#include "app.hpp"

int main(int argc, char **argv) { return queuey_cli::run(argc, argv); }

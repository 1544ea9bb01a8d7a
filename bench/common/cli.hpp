// The command-line pieces every bench program shares: `--flag VALUE` or `--flag=VALUE`
// pairs, -h/--help, and numbers and lists checked with an error that names the flag.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

class FlagReader {
public:
    // program: the name errors start with; usage: printed by --help and after an error.
    FlagReader(const char *program, const char *usage) : program_(program), usage_(usage) {}

    // Calls handle(flag, value) for each pair in argv; --help prints the usage and exits 0.
    void read(
        int argc, char **argv,
        const std::function<void(const std::string &flag, const std::string &value)> &handle) const;

    // Prints "PROGRAM: why" and the usage on stderr, exits 2.
    [[noreturn]] void bad(const std::string &why) const;

    // text as a number from 1 to max, else bad().
    std::size_t positive(const std::string &flag, const std::string &text, std::size_t max) const;

    // "a,b,,c" -> {"a", "b", "c"}.
    static std::vector<std::string> split(const std::string &list);

private:
    const char *program_;
    const char *usage_;
};

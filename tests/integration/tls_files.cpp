#include "tls_files.hpp"

#include "broker_fixture.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace queuey_it {

namespace {

void openssl(const std::string &dir, const std::string &arguments) {
    const CommandResult result = run_command("cd " + shell_quote(dir) + " && openssl " + arguments);
    if (result.exit_code != 0)
        throw std::runtime_error("openssl " + arguments + " failed:\n" + result.output);
}

void self_signed_ca(const std::string &dir, const std::string &name, const std::string &subject) {
    openssl(dir, "req -x509 -newkey rsa:2048 -nodes -days 2 -keyout " + name + ".key -out " + name +
                     ".pem -subj " + shell_quote(subject) +
                     " -addext basicConstraints=critical,CA:TRUE -addext "
                     "keyUsage=critical,keyCertSign,cRLSign");
}

}  // namespace

TlsFiles make_tls_files(const std::string &dir) {
    std::filesystem::create_directories(dir);
    self_signed_ca(dir, "ca", "/CN=queuey integration test CA");
    self_signed_ca(dir, "other-ca", "/CN=some other CA");
    {
        std::ofstream extensions(dir + "/server.ext");
        extensions << "basicConstraints = CA:FALSE\n"
                      "keyUsage = digitalSignature, keyEncipherment\n"
                      "extendedKeyUsage = serverAuth\n"
                      "subjectAltName = DNS:localhost\n";
    }
    openssl(dir,
            "req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=localhost");
    openssl(dir,
            "x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
            "-extfile server.ext -out server.pem");
    return {dir + "/ca.pem", dir + "/server.pem", dir + "/server.key", dir + "/other-ca.pem"};
}

std::string make_temp_dir(const std::string &prefix) {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error("mkdtemp failed for " + pattern);
    std::filesystem::permissions(
        pattern, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                     std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                     std::filesystem::perms::others_exec);
    return pattern;
}

void remove_tree(const std::string &dir) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}

}  // namespace queuey_it

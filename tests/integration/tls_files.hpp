// Certificates for a TLS broker, made with the openssl command line in a directory.
#pragma once

#include <string>

namespace queuey_it {

struct TlsFiles {
    std::string ca_cert;      // ca.pem: the CA that signed the server certificate
    std::string server_cert;  // server.pem: for DNS name "localhost" only (no IP address)
    std::string server_key;   // server.key
    std::string other_ca;     // other-ca.pem: a CA that signed nothing of ours
};

// Writes a CA, a server certificate and key signed by it, and an unrelated CA into dir
// (created if needed). Throws std::runtime_error with openssl's output on failure.
TlsFiles make_tls_files(const std::string &dir);

// A new directory under $TMPDIR (or /tmp) that the broker's user can enter; removed
// with remove_tree.
std::string make_temp_dir(const std::string &prefix);
void remove_tree(const std::string &dir);

}  // namespace queuey_it

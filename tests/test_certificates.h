// Certificates made at test time with the openssl command, so that no key
// lives in the repository and none expires: a CA, a server certificate it
// signed for localhost and 127.0.0.1, client certificates it signed (bench-a by
// its CN alone, bench-b with a SAN URI too, bench-c), and an unrelated second CA
// with its own client certificate.

#ifndef WASSERWARP_TESTS_TEST_CERTIFICATES_H_
#define WASSERWARP_TESTS_TEST_CERTIFICATES_H_

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp::testing {

struct TestCertificates {
  std::string ca;  // PEM certificate of the CA
  std::string server_cert;
  std::string server_key;
  std::string client_cert;
  std::string client_key;
  std::string other_ca;           // an unrelated CA
  std::string other_client_cert;  // signed by the other CA
  std::string other_client_key;
  // Signed by `ca`: CN bench-b with SAN URI spiffe://wasserwarp.test/bench-b; CN bench-c.
  std::string second_client_cert;
  std::string second_client_key;
  std::string third_client_cert;
  std::string third_client_key;
};

// The SAN URI of the second client certificate.
inline constexpr char kSecondClientUri[] = "spiffe://wasserwarp.test/bench-b";

inline constexpr char kCertificateKeyOptions[] =
    "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

// The shell command that makes NAME.key and NAME.pem, signed by CA.pem with CA.key and the
// extensions of EXT, in the current directory.
inline std::string SignCertificateCommand(const std::string& name, const std::string& ca,
                                          const std::string& ext, const std::string& subject) {
  return absl::StrCat("openssl req ", kCertificateKeyOptions, " -subj '/CN=", subject, "' -keyout ",
                      name, ".key -out ", name, ".csr && openssl x509 -req -in ", name, ".csr -CA ",
                      ca, ".pem -CAkey ", ca, ".key -CAcreateserial -days 1 -extfile ", ext,
                      " -out ", name, ".pem");
}

inline bool HasOpenssl() { return std::system("command -v openssl >/dev/null 2>&1") == 0; }

// Writes the files into `dir`. P-256 keys, valid for a day.
inline absl::Status MakeTestCertificates(const std::filesystem::path& dir, TestCertificates& out) {
  const auto path = [&](const std::string& name) { return (dir / name).string(); };
  {
    std::ofstream server_ext(path("server.ext"));
    server_ext << "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                  "basicConstraints=CA:FALSE\n"
                  "keyUsage=digitalSignature\n"
                  "extendedKeyUsage=serverAuth\n";
    std::ofstream client_ext(path("client.ext"));
    client_ext << "basicConstraints=CA:FALSE\n"
                  "keyUsage=digitalSignature\n"
                  "extendedKeyUsage=clientAuth\n";
    std::ofstream uri_client_ext(path("uri_client.ext"));
    uri_client_ext << "subjectAltName=URI:" << kSecondClientUri
                   << "\nbasicConstraints=CA:FALSE\n"
                      "keyUsage=digitalSignature\n"
                      "extendedKeyUsage=clientAuth\n";
  }
  const auto make_ca = [&](const std::string& name, const std::string& subject) {
    return absl::StrCat("openssl req -x509 ", kCertificateKeyOptions,
                        " -days 1 -subj '/CN=", subject, "' -keyout ", name, ".key -out ", name,
                        ".pem");
  };
  const auto make_signed = SignCertificateCommand;
  const std::string script =
      absl::StrCat("cd '", dir.string(), "' && ", make_ca("ca", "wasserwarp test CA"), " && ",
                   make_ca("other_ca", "unrelated test CA"), " && ",
                   make_signed("server", "ca", "server.ext", "localhost"), " && ",
                   make_signed("client", "ca", "client.ext", "bench-a"), " && ",
                   make_signed("other_client", "other_ca", "client.ext", "intruder"), " && ",
                   make_signed("second_client", "ca", "uri_client.ext", "bench-b"), " && ",
                   make_signed("third_client", "ca", "client.ext", "bench-c"));
  // Every command's output goes to the log, not just the last one's.
  const std::string wrapped = absl::StrCat("( ", script, " ) >'", path("openssl.log"), "' 2>&1");
  if (std::system(wrapped.c_str()) != 0) {
    std::ifstream log(path("openssl.log"));
    const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    return absl::InternalError(absl::StrCat("openssl failed:\n", text));
  }
  out = {.ca = path("ca.pem"),
         .server_cert = path("server.pem"),
         .server_key = path("server.key"),
         .client_cert = path("client.pem"),
         .client_key = path("client.key"),
         .other_ca = path("other_ca.pem"),
         .other_client_cert = path("other_client.pem"),
         .other_client_key = path("other_client.key"),
         .second_client_cert = path("second_client.pem"),
         .second_client_key = path("second_client.key"),
         .third_client_cert = path("third_client.pem"),
         .third_client_key = path("third_client.key")};
  return absl::OkStatus();
}

// What the tests of access control start from, in `dir`: the certificates, and a token file of
// two principals, bench-a:tok-a and bench-b:tok-b, each token also alone in a file of its name
// (for --token-file).
inline absl::Status MakeCertificatesAndTokens(const std::filesystem::path& dir,
                                              TestCertificates& out) {
  if (absl::Status made = MakeTestCertificates(dir, out); !made.ok()) return made;
  for (const auto& [name, content] :
       {std::pair{"tokens", "bench-a:tok-a\nbench-b:tok-b\n"}, std::pair{"tok-a", "tok-a\n"},
        std::pair{"tok-b", "tok-b\n"}}) {
    std::ofstream file(dir / name);
    file << content;
    if (!file) return absl::InternalError(absl::StrCat("cannot write ", (dir / name).string()));
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::testing

#endif  // WASSERWARP_TESTS_TEST_CERTIFICATES_H_

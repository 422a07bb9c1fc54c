// HTTPS with Debian's civetweb 1.15 on OpenSSL 3: civetweb loads libssl with dlopen and looks up
// SSL_get_peer_certificate, which OpenSSL 3 no longer exports (it became a macro for
// SSL_get1_peer_certificate, with the same meaning), and calls the null pointer it got after
// every TLS handshake (civetweb issue #1334). The server's dlsym answers that one lookup with
// SSL_get1_peer_certificate when the name itself is not found; every other lookup is glibc's.

#ifndef WASSERWARP_SERVER_HTTP_CIVETWEB_OPENSSL3_H_
#define WASSERWARP_SERVER_HTTP_CIVETWEB_OPENSSL3_H_

namespace wasserwarp::service::http {

// Whether civetweb's lookup of SSL_get_peer_certificate will find a function; HttpListener
// refuses HTTPS otherwise. Calling it also links the dlsym above into the server.
bool PeerCertificateLookupWorks();

}  // namespace wasserwarp::service::http

#endif  // WASSERWARP_SERVER_HTTP_CIVETWEB_OPENSSL3_H_

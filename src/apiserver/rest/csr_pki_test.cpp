#include <gtest/gtest.h>

#include <kube/base/base64.hpp>
#include <string>
#include <string_view>

#include "apiserver/rest/csr.hpp"

namespace kube::apiserver::rest {
namespace {

// openssl-made: a P-256 request, an RSA 1024 request, a self-signed P-256 certificate.
constexpr std::string_view kEcCsr =
    "-----BEGIN CERTIFICATE REQUEST-----\n"
    "MIHrMIGSAgEAMDAxFzAVBgNVBAMMDnN5c3RlbTpub2RlOm4xMRUwEwYDVQQKDAxz\n"
    "eXN0ZW06bm9kZXMwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATK/2rn3GMJH5VM\n"
    "w/+yCXfeLLVvHVyiHNs7Dl0WmNHMehAf31FNphHstHCixmUaOdjOwJQy/rDT5QvO\n"
    "qeqjoJzeoAAwCgYIKoZIzj0EAwIDSAAwRQIgS4zVcQOTIsbljmLp12QHIZFmx9Yr\n"
    "6m+CUTM+jf6w9JwCIQCfo+3bCZqRnQFEwtOThQDq8lUEYqftAMUQBB79vrpuow==\n"
    "-----END CERTIFICATE REQUEST-----\n";
constexpr std::string_view kRsaCsr =
    "-----BEGIN CERTIFICATE REQUEST-----\n"
    "MIIBTTCBtwIBADAOMQwwCgYDVQQDDANib2IwgZ8wDQYJKoZIhvcNAQEBBQADgY0A\n"
    "MIGJAoGBAKN2GqLq6sfW/d/go76VPBKMWxG0ZglgJlQFUDP+YOcZTmivhimPmKwf\n"
    "HvTwywUb3PCH9X0JBbJPfQrccxxnfbIXeS5SuaMindHkgw2e7DAJGwF4dvOIvurd\n"
    "ukneUOT8KYD7LX8WtUsgtg+NMbuMoMMjsK3qvieXoHMf+JmVEEJXAgMBAAGgADAN\n"
    "BgkqhkiG9w0BAQsFAAOBgQAN6dnIImUgHDGp/LO823Xy8SA73Vuioq4P4n819nFM\n"
    "4ShV2SCOh2IVF3qYwFwhMTexYJvMkWq3mLWPdabtyNUHr8jbEeFOakZQ3TNsA9t9\n"
    "yKk5OTks0fBMV6cEjzu70G3YcBlrcsAcQ3Kou8PVHggT/ag0fGVj3TEjv/IWZmNf\n"
    "rA==\n"
    "-----END CERTIFICATE REQUEST-----\n";
constexpr std::string_view kCert =
    "-----BEGIN CERTIFICATE-----\n"
    "MIIBeDCCAR2gAwIBAgIUV0DrzKya0NiOulfQxYXwRQJPFiAwCgYIKoZIzj0EAwIw\n"
    "ETEPMA0GA1UEAwwGaXNzdWVkMB4XDTI2MTIwMzE2NTUyMloXDTM2MTEzMDE2NTUy\n"
    "MlowETEPMA0GA1UEAwwGaXNzdWVkMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n"
    "iO6uT/H3nXuxSYjTZSCQ67QHjWspI2K9EMcS84jTWTICWkUnxoOc3VS/z0yDdHh1\n"
    "i4ju5oiEOA83yXp0DTqS7qNTMFEwHQYDVR0OBBYEFEilYzQ1lL9k95IdO8OqpXC6\n"
    "PlCOMB8GA1UdIwQYMBaAFEilYzQ1lL9k95IdO8OqpXC6PlCOMA8GA1UdEwEB/wQF\n"
    "MAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIhAIbmmg33P7GR0uSJHopOBLrg8uBsWA+C\n"
    "BSeZDxm1GZWsAiEAwYhT5H8qAU9W7+si6UAatm/QteXvJuKmgYTzogdtdBc=\n"
    "-----END CERTIFICATE-----\n";

// `pem` re-encoded with `edit` applied to its DER.
template <class Edit>
std::string Reencoded(std::string_view pem, std::string_view type, Edit edit) {
  auto block = DecodePem(pem);
  EXPECT_TRUE(block.has_value());
  std::string der = block->bytes;
  edit(der);
  return "-----BEGIN " + std::string(type) + "-----\n" + Base64Encode(der) + "\n-----END " + std::string(type) +
         "-----\n";
}

std::string Request(std::string_view body) {
  return "-----BEGIN CERTIFICATE REQUEST-----\n" + std::string(body) + "\n-----END CERTIFICATE REQUEST-----\n";
}

TEST(CsrPki, DecodePemSkipsTextAndMalformedBlocksAsGoDoes) {
  std::string_view rest;
  const std::string text =
      "leading\n-----BEGIN A-----\n!!!\n-----END A-----\n-----BEGIN B-----\nK: v\n\nYWJj\n"
      "-----END B-----\ntrailing";
  auto block = DecodePem(text, &rest);
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(block->type, "B");
  EXPECT_EQ(block->headers.at("K"), "v");
  EXPECT_EQ(block->bytes, "abc");
  EXPECT_EQ(rest, "trailing");
  EXPECT_FALSE(DecodePem("-----BEGIN X-----\nYWJj\n-----END Y-----\n").has_value());
  EXPECT_FALSE(DecodePem("no pem here").has_value());
}

TEST(CsrPki, ValidRequestsAreSignedByTheirOwnKey) {
  EXPECT_EQ(CertificateRequestError(kEcCsr), "");
  EXPECT_EQ(CertificateRequestError(kRsaCsr), "");
  EXPECT_EQ(CertificateRequestError("before\n" + std::string(kEcCsr) + "after"), "");
}

TEST(CsrPki, ABrokenSignatureIsGosVerificationError) {
  auto flip = [](std::string& der) { der[der.size() - 3] ^= 1; };
  EXPECT_EQ(CertificateRequestError(Reencoded(kEcCsr, "CERTIFICATE REQUEST", flip)),
            "x509: ECDSA verification failure");
  EXPECT_EQ(CertificateRequestError(Reencoded(kRsaCsr, "CERTIFICATE REQUEST", flip)), "crypto/rsa: verification error");
}

TEST(CsrPki, MalformedRequestsAreGosAsn1Errors) {
  EXPECT_EQ(CertificateRequestError(kCert), "PEM block type must be CERTIFICATE REQUEST");
  EXPECT_EQ(CertificateRequestError("abc"), "PEM block type must be CERTIFICATE REQUEST");
  EXPECT_EQ(CertificateRequestError(Request("AAAA")),
            "asn1: structure error: tags don't match (16 vs {class:0 tag:0 length:0 isCompound:false}) "
            "{optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> "
            "stringType:0 timeType:0 set:false omitEmpty:false} certificateRequest @2");
  EXPECT_NE(CertificateRequestError(Request("QUJD")).find("(16 vs {class:1 tag:1 length:66 isCompound:false})"),
            std::string::npos);
  EXPECT_EQ(CertificateRequestError(Request("")), "asn1: syntax error: sequence truncated");
  EXPECT_EQ(CertificateRequestError(Request("MA==")), "asn1: syntax error: truncated tag or length");
  EXPECT_EQ(CertificateRequestError(Request("MAM=")), "asn1: syntax error: data truncated");
  EXPECT_EQ(CertificateRequestError(Reencoded(kEcCsr, "CERTIFICATE REQUEST", [](std::string& der) { der += '\0'; })),
            "asn1: syntax error: trailing data");
}

TEST(CsrPki, CertificatesAreAChainOfCertificateBlocks) {
  EXPECT_EQ(CertificateError(""), "");
  EXPECT_EQ(CertificateError(kCert), "");
  EXPECT_EQ(CertificateError(std::string(kCert) + std::string(kCert)), "");
  EXPECT_EQ(CertificateError("junk"), "must contain at least one CERTIFICATE PEM block");
  EXPECT_EQ(CertificateError(kEcCsr), "only CERTIFICATE PEM blocks are allowed, found \"CERTIFICATE REQUEST\"");
  EXPECT_EQ(CertificateError("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"),
            "found CERTIFICATE PEM block containing 0 certificates");
  EXPECT_EQ(CertificateError("-----BEGIN CERTIFICATE-----\nK: v\n\nYWJj\n-----END CERTIFICATE-----\n"),
            "no PEM block headers are permitted");
}

}  // namespace
}  // namespace kube::apiserver::rest

#include <kube/apiserver/http_server.hpp>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace kube::apiserver {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteAll(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

unsigned Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

X509Ptr LoadCert(const std::string& path) {
  const std::string pem = ReadAll(path);
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509Ptr cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return cert;
}

std::string Base64Decode(const std::string& text) {
  std::string out(text.size(), '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return "";
  std::size_t len = static_cast<std::size_t>(n);
  for (auto it = text.rbegin(); it != text.rend() && *it == '='; ++it) --len;  // padding
  out.resize(len);
  return out;
}

X509Ptr ParseCert(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509Ptr cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return cert;
}

TEST(IssueCertificate, AClientCertificateNamesTheUserAndGroupsAndIsSignedByItsIssuer) {
  auto ca = IssueCertificate({.common_name = "client-ca", .usage = CertificateSpec::Usage::kCa});
  ASSERT_TRUE(ca.ok()) << ca.error().message;
  auto client = IssueCertificate({.common_name = "alice",
                                  .organizations = {"system:masters", "devs"},
                                  .usage = CertificateSpec::Usage::kClient},
                                 &*ca);
  ASSERT_TRUE(client.ok()) << client.error().message;
  X509Ptr ca_cert = ParseCert(ca->cert_pem);
  X509Ptr cert = ParseCert(client->cert_pem);
  ASSERT_TRUE(ca_cert && cert);
  EXPECT_EQ(X509_verify(cert.get(), X509_get0_pubkey(ca_cert.get())), 1);
  char subject[256];
  X509_NAME_oneline(X509_get_subject_name(cert.get()), subject, sizeof subject);
  EXPECT_STREQ(subject, "/O=system:masters/O=devs/CN=alice");
  EXPECT_NE(X509_get_extended_key_usage(cert.get()) & XKU_SSL_CLIENT, 0u);
  EXPECT_EQ(X509_check_ca(cert.get()), 0);
  EXPECT_NE(X509_check_ca(ca_cert.get()), 0);

  auto self_signed = IssueCertificate({.common_name = "x"});
  ASSERT_TRUE(self_signed.ok()) << self_signed.error().message;
  X509Ptr self = ParseCert(self_signed->cert_pem);
  ASSERT_TRUE(self);
  EXPECT_EQ(X509_verify(self.get(), X509_get0_pubkey(self.get())), 1);
  CertificateAndKey garbage{.cert_pem = "not pem", .key_pem = "not pem"};
  auto refused = IssueCertificate({.common_name = "x"}, &garbage);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, 500);
}

TEST(GenerateKeyPair, GivesMatchingPrivateAndPublicKeys) {
  auto pair = GenerateKeyPair();
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  BIO* priv_bio = BIO_new_mem_buf(pair->private_key_pem.data(), static_cast<int>(pair->private_key_pem.size()));
  EVP_PKEY* priv = PEM_read_bio_PrivateKey(priv_bio, nullptr, nullptr, nullptr);
  BIO* pub_bio = BIO_new_mem_buf(pair->public_key_pem.data(), static_cast<int>(pair->public_key_pem.size()));
  EVP_PKEY* pub = PEM_read_bio_PUBKEY(pub_bio, nullptr, nullptr, nullptr);
  ASSERT_NE(priv, nullptr);
  ASSERT_NE(pub, nullptr);
  EXPECT_EQ(EVP_PKEY_eq(priv, pub), 1);
  EVP_PKEY_free(priv);
  EVP_PKEY_free(pub);
  BIO_free(priv_bio);
  BIO_free(pub_bio);
}

class PkiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() /
            ("kube-pki-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(PkiTest, EnsurePkiCreatesACaAndAServingCertificateForLocalhost) {
  auto pki = EnsurePki(dir_);
  ASSERT_TRUE(pki.ok()) << pki.error().ToString();
  EXPECT_EQ(pki->ca_file, dir_ + "/pki/ca.crt");
  EXPECT_EQ(pki->cert_file, dir_ + "/pki/server.crt");
  EXPECT_EQ(pki->key_file, dir_ + "/pki/server.key");
  EXPECT_EQ(Mode(dir_ + "/pki"), 0700U);
  EXPECT_EQ(Mode(pki->key_file), 0600U);
  EXPECT_EQ(Mode(dir_ + "/pki/ca.key"), 0600U);

  X509Ptr ca = LoadCert(pki->ca_file);
  X509Ptr cert = LoadCert(pki->cert_file);
  ASSERT_TRUE(ca && cert);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_EQ(X509_check_ca(cert.get()), 0);
  EXPECT_EQ(X509_check_host(cert.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "::1", 0), 1);
  EXPECT_NE(X509_check_host(cert.get(), "example.com", 0, 0, nullptr), 1);
  EXPECT_NE(X509_get_extended_key_usage(cert.get()) & XKU_SSL_SERVER, 0U);
  // The CA lasts ten years.
  std::time_t nine_years = std::time(nullptr) + 9L * 365 * 24 * 3600;
  EXPECT_GT(X509_cmp_time(X509_get0_notAfter(ca.get()), &nine_years), 0);

  // The chain verifies for a TLS server, strictly, as Python 3.13 checks it.
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca.get());
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  ASSERT_EQ(X509_STORE_CTX_init(ctx, store, cert.get(), nullptr), 1);
  X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
  X509_VERIFY_PARAM_set_flags(X509_STORE_CTX_get0_param(ctx), X509_V_FLAG_X509_STRICT);
  const int verified = X509_verify_cert(ctx);
  EXPECT_EQ(verified, 1) << X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
}

TEST_F(PkiTest, EnsurePkiReusesTheFilesOfAnEarlierCall) {
  auto first = EnsurePki(dir_);
  ASSERT_TRUE(first.ok());
  const std::string ca = ReadAll(first->ca_file);
  const std::string cert = ReadAll(first->cert_file);
  const std::string key = ReadAll(first->key_file);
  auto second = EnsurePki(dir_);
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  EXPECT_EQ(ReadAll(second->ca_file), ca);
  EXPECT_EQ(ReadAll(second->cert_file), cert);
  EXPECT_EQ(ReadAll(second->key_file), key);
}

TEST_F(PkiTest, EnsurePkiReissuesAnUnusableServingCertificateWithTheSameCa) {
  auto first = EnsurePki(dir_);
  ASSERT_TRUE(first.ok());
  const std::string ca = ReadAll(first->ca_file);
  const std::string cert = ReadAll(first->cert_file);
  WriteAll(first->cert_file, "garbage");
  auto second = EnsurePki(dir_);
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  EXPECT_EQ(ReadAll(second->ca_file), ca);
  const std::string reissued = ReadAll(second->cert_file);
  EXPECT_NE(reissued, cert);
  EXPECT_TRUE(LoadCert(second->cert_file));

  // A key that no longer matches its certificate is replaced too.
  fs::remove(second->key_file);
  auto third = EnsurePki(dir_);
  ASSERT_TRUE(third.ok()) << third.error().ToString();
  EXPECT_NE(ReadAll(third->cert_file), reissued);
  EXPECT_EQ(ReadAll(third->ca_file), ca);
}

TEST_F(PkiTest, EnsurePkiRefusesToReplaceACorruptCa) {
  ASSERT_TRUE(EnsurePki(dir_).ok());
  WriteAll(dir_ + "/pki/ca.crt", "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n");
  auto again = EnsurePki(dir_);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(IsInternalError(again.error()));
  EXPECT_EQ(ReadAll(dir_ + "/pki/ca.crt").substr(0, 10), "-----BEGIN");
}

TEST_F(PkiTest, EnsureTokenCreatesARandomTokenOnceAndReusesIt) {
  auto token = EnsureToken(dir_);
  ASSERT_TRUE(token.ok()) << token.error().ToString();
  EXPECT_EQ(token->size(), 64U);
  EXPECT_EQ(token->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(Mode(dir_ + "/token"), 0600U);
  auto again = EnsureToken(dir_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *token);

  WriteAll(dir_ + "/token", "  my-token\n");
  EXPECT_EQ(EnsureToken(dir_).value_or(""), "my-token");
  const std::string other = dir_ + "/other";
  auto fresh = EnsureToken(other);
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(*fresh, *token);
}

TEST_F(PkiTest, WriteKubeconfigEmbedsTheCaAndTheToken) {
  auto pki = EnsurePki(dir_);
  ASSERT_TRUE(pki.ok());
  const std::string path = dir_ + "/nested/dir/kubeconfig";
  ASSERT_TRUE(WriteKubeconfig(path, "https://127.0.0.1:6443", pki->ca_file, "tok\"en").ok());
  EXPECT_EQ(Mode(path), 0600U);

  YAML::Node config = YAML::LoadFile(path);
  EXPECT_EQ(config["apiVersion"].as<std::string>(), "v1");
  EXPECT_EQ(config["kind"].as<std::string>(), "Config");
  EXPECT_EQ(config["current-context"].as<std::string>(), "kubecpp");
  ASSERT_EQ(config["clusters"].size(), 1U);
  EXPECT_EQ(config["clusters"][0]["name"].as<std::string>(), "kubecpp");
  const YAML::Node cluster = config["clusters"][0]["cluster"];
  EXPECT_EQ(cluster["server"].as<std::string>(), "https://127.0.0.1:6443");
  EXPECT_EQ(Base64Decode(cluster["certificate-authority-data"].as<std::string>()),
            ReadAll(pki->ca_file));
  EXPECT_EQ(config["users"][0]["name"].as<std::string>(), "admin");
  EXPECT_EQ(config["users"][0]["user"]["token"].as<std::string>(), "tok\"en");
  const YAML::Node context = config["contexts"][0];
  EXPECT_EQ(context["name"].as<std::string>(), "kubecpp");
  EXPECT_EQ(context["context"]["cluster"].as<std::string>(), "kubecpp");
  EXPECT_EQ(context["context"]["user"].as<std::string>(), "admin");
}

TEST_F(PkiTest, WriteKubeconfigForPlainHttpOmitsTheCaAndReplacesTheFileAtomically) {
  const std::string path = dir_ + "/kubeconfig";
  ASSERT_TRUE(WriteKubeconfig(path, "https://old:1", "", "a").ok());
  ASSERT_TRUE(WriteKubeconfig(path, "http://127.0.0.1:8080", "", "").ok());
  YAML::Node config = YAML::LoadFile(path);
  const YAML::Node cluster = config["clusters"][0]["cluster"];
  EXPECT_EQ(cluster["server"].as<std::string>(), "http://127.0.0.1:8080");
  EXPECT_FALSE(cluster["certificate-authority-data"]);
  EXPECT_FALSE(config["users"][0]["user"]["token"]);
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1) << "no temporary file is left behind";
}

TEST_F(PkiTest, WriteKubeconfigFailsWhenTheCaCannotBeRead) {
  auto r = WriteKubeconfig(dir_ + "/kubeconfig", "https://x", dir_ + "/missing.crt", "t");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsInternalError(r.error()));
}

}  // namespace
}  // namespace kube::apiserver

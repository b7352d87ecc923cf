#include "apiserver/rest/service_account_token.hpp"

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "apiserver/rest/continue_token.hpp"

namespace kube::apiserver::rest {
namespace {

using std::chrono::seconds;
using std::chrono::sys_seconds;

// A throwaway RSA key a real kube-apiserver v1.32.13 ran with (--service-account-signing-key-file),
// two tokens it issued with it (pod-bound with the pod's node and an extended expiration, and
// secret-bound with two audiences) and its /openid/v1/jwks document.
constexpr std::string_view kKubeKeyPem = R"(-----BEGIN PRIVATE KEY-----
MIIEuwIBADANBgkqhkiG9w0BAQEFAASCBKUwggShAgEAAoIBAQDQUYJt3Bfs4GQ1
jdSM0NVFLb46wusALg9vmEOhwVFjhIoFIAmGI8GBWcl4D2mpGa2mxmipKOwdpIxU
goYkvjQE0AC/ltqCj9Lpjijoz6yU761CSqJ3G7te6CwiSelnTNcRVvp4dBLPsIck
d/HkOpr+l5Ki7Egl1eRFBjsontbVs9Lvuhx8qB2pQnL/fCLq8apd0wJUcq9i4tUX
pPGZ7pD3lBfj+dO77hZF9FpEG2x98R7c9vKL5IKWNnAX18OaUOaNk3oAG5wiAtDN
3M7Xo17pFWrNvJ/faeW1kD+5SFul0PXCdr3bMyz7jTvHj7vCAYsI92EFyvOtUxdN
bPe/kjt3AgMBAAECggEAEDB4H5vjsMaC3dXvEfR8JpCsAHq7yFChZXhNWpRLWXMS
8NwGXB+KPx21tmK9ljqHJXdflIniyQOhM5jN3lbOdHNKeO6QfmYOq5T0i/HxGnAC
pIISsd6nXJ7+0w6wbhU+1OZQDS1kIDI6sR8F3vPzrgZ54GHW0jiXBrWPF785uJ4e
861uxHELXZ9pqPe0GIn+XbOLS/BQevFdqDh6YEzNizGYfverDNZYeoxHMoXnB0ED
CJbjQ/m5Rj/W95R7qnWpB/LJCwsot9BmW0Zrv2Nm7T0e+eguFVgKezY9ntcOL2Sg
PE5ACbzOH2h7C/Ri/5Ryae4gVX+Iuf16p8XyC/K+WQKBgQDoJEBKgyjmouRlV8av
mGdEg47xNDkjkLNNrWXI5i3kLu9Yh4q5nb4p/YiE5wk/VEbwA3V9ipZuaZSuKWKq
NyV8oRrXyW9Cos6wX2Y9m4zRnmznyXV0JlrrzyuzG3JcSbI3gGS+DpFIkARQmftD
Za3xnROSt9g7ZF8O7KRnJT/ECQKBgQDlunWIqdBQ+BqNVq7A/gsV22BOgbrx71zp
bKLEkmKuiwwN77beclM1clhCoSXV0FYWErN306Qmlr+8t2vloJeDnHpThsICI/HH
XUJViAdSsbRJqixHxMfHR8Z++W6jS+2SGuhOIIvzcCdkpJLWxheI6oSm/gLCZSQE
w16+iDzjfwKBgQCaCKPYTVtwXhmq3SlrDndHUPwiNILNhJBVNH9bZNCCnloWpil4
rKCoACD7/sl2Chff3ouxN6pFrS0Iu1FKnLj1D3leQbzfvGPlSAfxTSuNU8/zpQuY
fHLMEXVvrQCfGA93IGy4Z7YjLdyPFv1QZUGcFpwMOIz0K8+feYpFHsRG8QJ/Rf6J
0RnsXr85V9cRZ7v/pKkyrrjYPN6xcG2pKjtv1b6H7bccAKrUr3QncCWpYXwYvqD0
DY5udVN5GAbK2SwU/gSvQMPOWNia0iOYEndfw9JhHBC9bSCHvjAgSo+1Jgv8Vofc
P/GqsoF5fzCljMrOYOkTgc3jCVfHoavlMihQZQKBgG3PktEf8u9rxxc552vTF4x6
3zJRIbweSbIcvOry3hXkVuTS3YdTSrt/2+nPG8cSdvhnOenErYJZYNemczD2/gxe
uhtuNoVqjTwMqhaN4Hb2gzzcjluFTQBS2TqfJ/2KRq4f90QSo2a+RL1p2p3bZuLj
58dNLtb1h5Fagl9FKZB7
-----END PRIVATE KEY-----
)";
constexpr std::string_view kKubePodToken =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6InJMblhlNm9vSjlmNXFHVkdPS3hwOF9Qc2piNm96emJRNFVZTEtmTVYzZTgifQ.eyJhdWQiO"
    "lsiaHR0cHM6Ly9rdWJlcm5ldGVzLmRlZmF1bHQuc3ZjIl0sImV4cCI6MTgyNzg1MjQ0OCwiaWF0IjoxNzk2MzE2NDQ4LCJpc3MiO"
    "iJodHRwczovL2t1YmVybmV0ZXMuZGVmYXVsdC5zdmMiLCJqdGkiOiIwNzE0YWI3OS1lMjkzLTRkNGYtOTk4ZS00Y2ZjN2RmNDdiN"
    "2YiLCJrdWJlcm5ldGVzLmlvIjp7Im5hbWVzcGFjZSI6ImRlZmF1bHQiLCJub2RlIjp7Im5hbWUiOiJuMSIsInVpZCI6IjQ3NDUxN"
    "DEzLTM1NjItNGUyYi1hODY2LTc2YWI0MWY1M2NmYiJ9LCJwb2QiOnsibmFtZSI6InBuIiwidWlkIjoiOTk5MDAwMGEtNzRiOS00Z"
    "GE5LWJhMjMtNTUwYjk4MjM2YWZlIn0sInNlcnZpY2VhY2NvdW50Ijp7Im5hbWUiOiJzYSIsInVpZCI6ImI1MWMxZDhkLWY0MTUtN"
    "GI0Mi1hYzhhLTc0MzYxOTc4NDNiNiJ9LCJ3YXJuYWZ0ZXIiOjE3OTYzMjAwNTV9LCJuYmYiOjE3OTYzMTY0NDgsInN1YiI6InN5c"
    "3RlbTpzZXJ2aWNlYWNjb3VudDpkZWZhdWx0OnNhIn0.W4QxSc6idfmOk4RoSguToGLH3TOJ4r2v8q7PMZO-7mOGSr9T0iroPD8Rz"
    "ZLLiZLdzVTb8PiN_c-inUaZcg8gWw44iQJZ0DHbRdjTJJ1xhwUYMPGwILViUEty-cAdi67JhHF-QbvWKWNPFTVAEyzBvH1urPsCg"
    "ar1EWy89tjfQMxEJZINkj0E1f8VhfVtaOI08exfNNqZsnkL9ZtUD_W6Q87NgIX_nPERWN9ggW_71P-BA66YbBkMniWHFWn0-DCcG"
    "ep-zP1SFWUtQDeB5P9xfb8D0mMs5QHDc5kE-x-2QNzZYHcamIbuZNdR1hJZ8v6ru_mzDdDEusrmgHTP34yFGw";
constexpr std::string_view kKubeSecretToken =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6InJMblhlNm9vSjlmNXFHVkdPS3hwOF9Qc2piNm96emJRNFVZTEtmTVYzZTgifQ.eyJhdWQiO"
    "lsiYSIsImIiXSwiZXhwIjoxNzk2MzIwMDQ5LCJpYXQiOjE3OTYzMTY0NDksImlzcyI6Imh0dHBzOi8va3ViZXJuZXRlcy5kZWZhd"
    "Wx0LnN2YyIsImp0aSI6IjU2MzkyNWZhLWIwOTYtNDhkNS1hNzQ5LTQzOTc0MTZlMmJhMyIsImt1YmVybmV0ZXMuaW8iOnsibmFtZ"
    "XNwYWNlIjoiZGVmYXVsdCIsInNlY3JldCI6eyJuYW1lIjoicyIsInVpZCI6IjljNDE3YTI2LTc2MTMtNDU4Ni1hOGM3LWNmOWJjZ"
    "WYyMWJhZCJ9LCJzZXJ2aWNlYWNjb3VudCI6eyJuYW1lIjoic2EiLCJ1aWQiOiJiNTFjMWQ4ZC1mNDE1LTRiNDItYWM4YS03NDM2M"
    "Tk3ODQzYjYifX0sIm5iZiI6MTc5NjMxNjQ0OSwic3ViIjoic3lzdGVtOnNlcnZpY2VhY2NvdW50OmRlZmF1bHQ6c2EifQ.pFZepC"
    "igbpOKfwJCrjHWN9H3s5pFmFJ3Zq78vYVvRTmRB4vZ-EyFu6hHqLm-VYhhgAtSK_5Z3lVZZBNQCC6l2T_Dw3yFTRYcMcFfio8JS3"
    "1E-h1uAGbX1d6e7L1ed6XEk5sIreOdeKtXysMo0vrrih16-d9WtNbkYXSkW1b6UMOGkrSiSdxR1VPnZo52mHhSLyeBN7fQH_NdFU"
    "OwES9yz9hNmK5uF4Gfs8p8stlzt_ZYEgFHvj632qAuUGkb2cM6Jm-RYsjkQ1-hbjBBGPxO3dfO2AOO5li21N19weuAvvkMbg_JCw"
    "P2MSVb1thfs6mNIz6cqBQkAPuPYO-0o8euKQ";
constexpr std::string_view kKubeJwks =
    "{\"keys\":[{\"use\":\"sig\",\"kty\":\"RSA\",\"kid\":\"rLnXe6ooJ9f5qGVGOKxp8_Psjb6ozzbQ4UYLKfMV3e8\",\"alg\":\"RS256\","
    "\"n\":\"0FGCbdwX7OBkNY3UjNDVRS2-OsLrAC4Pb5hDocFRY4SKBSAJhiPBgVnJeA9pqRmtpsZoqSjsHaSMVIKGJL40BNAAv5bago_"
    "S6Y4o6M-slO-tQkqidxu7XugsIknpZ0zXEVb6eHQSz7CHJHfx5Dqa_peSouxIJdXkRQY7KJ7W1bPS77ocfKgdqUJy_3wi6vGqXdM"
    "CVHKvYuLVF6Txme6Q95QX4_nTu-4WRfRaRBtsffEe3Pbyi-SCljZwF9fDmlDmjZN6ABucIgLQzdzO16Ne6RVqzbyf32nltZA_uUh"
    "bpdD1wna92zMs-407x4-7wgGLCPdhBcrzrVMXTWz3v5I7dw\",\"e\":\"AQAB\"}]}";
constexpr std::string_view kKubeKeyId = "rLnXe6ooJ9f5qGVGOKxp8_Psjb6ozzbQ4UYLKfMV3e8";
constexpr int64_t kPodTokenIssuedAt = 1796316448;

std::string Segment(std::string_view token, int i) {
  std::size_t start = 0;
  for (int k = 0; k < i; ++k) start = token.find('.', start) + 1;
  const std::size_t end = token.find('.', start);
  std::string out;
  EXPECT_TRUE(Base64RawUrlDecode(token.substr(start, end == std::string_view::npos ? end : end - start), out));
  return out;
}

// A FakeClock at the given Unix second.
void SetWall(FakeClock& clock, int64_t unix) {
  const auto now = std::chrono::duration_cast<seconds>(clock.WallNow().time_since_epoch()).count();
  ASSERT_LE(now, unix);
  clock.Advance(seconds(unix - now));
}

ServiceAccountTokenClaims SampleClaims(sys_seconds now) {
  return {.issuer = {},
          .subject = ServiceAccountUsername("ns1", "robot"),
          .audiences = {"https://kubernetes.default.svc"},
          .issued_at = now,
          .not_before = now,
          .expiry = now + seconds(3600),
          .id = "b0e5d4a8-6c1f-4a51-9a44-3b9e1e2d7f10",
          .ns = "ns1",
          .service_account = {"robot", "0f5f8c1e-2b7a-4d9b-8c6e-1a2b3c4d5e6f"},
          .pod = std::nullopt,
          .secret = std::nullopt,
          .node = std::nullopt,
          .warn_after = std::nullopt};
}

sys_seconds WallSeconds(const Clock& clock) {
  return std::chrono::time_point_cast<seconds>(sys_seconds::clock::time_point(clock.WallNow().time_since_epoch()));
}

class IssuerTest : public ::testing::Test {
 protected:
  FakeClock clock_;
  ServiceAccountTokenIssuer issuer_{TokenIssuerOptions{.issuer = "https://kubernetes.default.svc",
                                                       .api_audiences = {},
                                                       .private_key_pem = std::string(kKubeKeyPem),
                                                       .key_file = {},
                                                       .clock = &clock_}};
};

TEST(ServiceAccountToken, UsernameIsKubesServiceAccountUser) {
  EXPECT_EQ(ServiceAccountUsername("default", "sa"), "system:serviceaccount:default:sa");
}

TEST(ServiceAccountToken, PayloadMembersAreSortedAndEmptyOptionalsOmitted) {
  ServiceAccountTokenClaims c = SampleClaims(sys_seconds(seconds(1700000000)));
  c.issuer = "https://kubernetes.default.svc";
  EXPECT_EQ(ClaimsPayloadJson(c),
            R"({"aud":["https://kubernetes.default.svc"],"exp":1700003600,"iat":1700000000,)"
            R"("iss":"https://kubernetes.default.svc","jti":"b0e5d4a8-6c1f-4a51-9a44-3b9e1e2d7f10",)"
            R"("kubernetes.io":{"namespace":"ns1","serviceaccount":{"name":"robot","uid":"0f5f8c1e-2b7a-4d9b-8c6e-1a2b3c4d5e6f"}},)"
            R"("nbf":1700000000,"sub":"system:serviceaccount:ns1:robot"})");
  c.pod = TokenObjectRef{"p", "u1"};
  c.node = TokenObjectRef{"n", ""};  // a pod's node that does not exist: its name alone
  c.warn_after = sys_seconds(seconds(1700003607));
  EXPECT_EQ(ClaimsPayloadJson(c),
            R"({"aud":["https://kubernetes.default.svc"],"exp":1700003600,"iat":1700000000,)"
            R"("iss":"https://kubernetes.default.svc","jti":"b0e5d4a8-6c1f-4a51-9a44-3b9e1e2d7f10",)"
            R"("kubernetes.io":{"namespace":"ns1","node":{"name":"n"},"pod":{"name":"p","uid":"u1"},)"
            R"("serviceaccount":{"name":"robot","uid":"0f5f8c1e-2b7a-4d9b-8c6e-1a2b3c4d5e6f"},"warnafter":1700003607},)"
            R"("nbf":1700000000,"sub":"system:serviceaccount:ns1:robot"})");
  auto back = ParseClaimsPayload(ClaimsPayloadJson(c));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, c);
}

TEST(ServiceAccountToken, ParseAcceptsASingleStringAudienceAndRejectsWrongTypes) {
  auto one = ParseClaimsPayload(R"({"aud":"api","exp":5,"kubernetes.io":{"namespace":"n"}})");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->audiences, std::vector<std::string>{"api"});
  EXPECT_EQ(one->expiry, sys_seconds(seconds(5)));
  EXPECT_EQ(one->ns, "n");
  for (std::string_view bad : {R"([])", R"({"exp":"soon"})", R"({"aud":[1]})", R"({"kubernetes.io":{"pod":"p"}})", "{"}) {
    auto r = ParseClaimsPayload(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, 401) << bad;
    EXPECT_TRUE(r.error().message.starts_with("invalid token: ")) << r.error().message;
  }
}

TEST_F(IssuerTest, KeyIdAndJwksAreKubesForTheSameKey) {
  auto kid = issuer_.KeyId();
  ASSERT_TRUE(kid.ok()) << kid.error().message;
  EXPECT_EQ(*kid, kKubeKeyId);
  auto jwks = issuer_.JwksJson();
  ASSERT_TRUE(jwks.ok());
  EXPECT_EQ(*jwks, kKubeJwks);
}

TEST_F(IssuerTest, SignsTheSameClaimsByteForByteAsKubeApiserver) {
  // RSASSA-PKCS1-v1_5 is deterministic: equal header and payload bytes give kube's very token.
  for (std::string_view kube_token : {kKubePodToken, kKubeSecretToken}) {
    auto claims = ParseClaimsPayload(Segment(kube_token, 1));
    ASSERT_TRUE(claims.ok()) << claims.error().message;
    auto ours = issuer_.Sign(*claims);
    ASSERT_TRUE(ours.ok()) << ours.error().message;
    EXPECT_EQ(*ours, kube_token);
  }
  EXPECT_EQ(Segment(kKubePodToken, 0), R"({"alg":"RS256","kid":"rLnXe6ooJ9f5qGVGOKxp8_Psjb6ozzbQ4UYLKfMV3e8"})");
}

TEST_F(IssuerTest, SignSetsTheIssuer) {
  ServiceAccountTokenClaims c = SampleClaims(WallSeconds(clock_));
  c.issuer = "https://elsewhere";
  auto token = issuer_.Sign(c);
  ASSERT_TRUE(token.ok());
  auto claims = issuer_.Verify(*token);
  ASSERT_TRUE(claims.ok()) << claims.error().message;
  EXPECT_EQ(claims->issuer, "https://kubernetes.default.svc");
  c.issuer = claims->issuer;
  EXPECT_EQ(*claims, c);
}

TEST(ServiceAccountToken, VerifierFromKubesJwksAcceptsKubesTokens) {
  FakeClock clock;
  SetWall(clock, kPodTokenIssuedAt + 10);
  auto verifier = ServiceAccountTokenVerifier::FromJwks(
      kKubeJwks, {.issuer = "https://kubernetes.default.svc", .audiences = {"https://kubernetes.default.svc"}, .clock = &clock});
  ASSERT_TRUE(verifier.ok()) << verifier.error().message;
  auto claims = verifier->Verify(kKubePodToken);
  ASSERT_TRUE(claims.ok()) << claims.error().message;
  EXPECT_EQ(claims->subject, "system:serviceaccount:default:sa");
  EXPECT_EQ(claims->ns, "default");
  EXPECT_EQ(claims->service_account.name, "sa");
  ASSERT_TRUE(claims->pod && claims->node && claims->warn_after);
  EXPECT_EQ(claims->pod->name, "pn");
  EXPECT_EQ(claims->node->name, "n1");
  EXPECT_EQ(*claims->warn_after, sys_seconds(seconds(kPodTokenIssuedAt + 3607)));
  EXPECT_EQ(claims->expiry, sys_seconds(seconds(kPodTokenIssuedAt + 365 * 24 * 3600)));
  // The secret-bound token names other audiences only.
  auto other = verifier->Verify(kKubeSecretToken);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().message,
            R"(token audiences ["a" "b"] is invalid for the target audiences ["https://kubernetes.default.svc"])");
}

TEST(ServiceAccountToken, FromJwksRejectsDocumentsWithoutRsaKeys) {
  for (std::string_view bad : {"", "[]", R"({"keys":{}})", R"({"keys":[]})", R"({"keys":[{"kty":"EC","x":"AA"}]})",
                               R"({"keys":[{"kty":"RSA","n":"!!","e":"AQAB"}]})"}) {
    auto v = ServiceAccountTokenVerifier::FromJwks(bad, {});
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.error().code, 400) << bad;
  }
}

TEST_F(IssuerTest, VerifyChecksExpiryAndNotBeforeWithAMinuteOfLeeway) {
  const sys_seconds now = WallSeconds(clock_);
  auto token = issuer_.Sign(SampleClaims(now));
  ASSERT_TRUE(token.ok());
  EXPECT_TRUE(issuer_.Verify(*token).ok());
  clock_.Advance(seconds(3600 + 60));  // exactly at exp + leeway: still valid
  EXPECT_TRUE(issuer_.Verify(*token).ok());
  clock_.Advance(seconds(1));
  auto expired = issuer_.Verify(*token);
  ASSERT_FALSE(expired.ok());
  EXPECT_EQ(expired.error().code, 401);
  EXPECT_EQ(expired.error().message, "service account token has expired");

  ServiceAccountTokenClaims later = SampleClaims(WallSeconds(clock_) + seconds(120));
  later.issued_at = WallSeconds(clock_);
  auto early = issuer_.Sign(later);
  ASSERT_TRUE(early.ok());
  auto not_yet = issuer_.Verify(*early);
  ASSERT_FALSE(not_yet.ok());
  EXPECT_EQ(not_yet.error().message, "service account token is not valid yet");
  clock_.Advance(seconds(60));
  EXPECT_TRUE(issuer_.Verify(*early).ok());

  ServiceAccountTokenClaims future = SampleClaims(WallSeconds(clock_));
  future.issued_at = WallSeconds(clock_) + seconds(61);
  auto issued_later = issuer_.Sign(future);
  ASSERT_TRUE(issued_later.ok());
  EXPECT_EQ(issuer_.Verify(*issued_later).error().message, "service account token was issued in the future");
}

TEST_F(IssuerTest, VerifyNeedsOneOfTheAudiences) {
  ServiceAccountTokenClaims c = SampleClaims(WallSeconds(clock_));
  c.audiences = {"vault", "api"};
  auto token = issuer_.Sign(c);
  ASSERT_TRUE(token.ok());
  auto wrong = issuer_.Verify(*token);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, 401);
  EXPECT_EQ(wrong.error().message,
            R"(token audiences ["vault" "api"] is invalid for the target audiences ["https://kubernetes.default.svc"])");
  EXPECT_TRUE(issuer_.Verify(*token, {"api"}).ok());
  EXPECT_TRUE(issuer_.Verify(*token, {"x", "vault"}).ok());
}

TEST_F(IssuerTest, VerifyRejectsTamperedAndForeignTokens) {
  auto token = issuer_.Sign(SampleClaims(WallSeconds(clock_)));
  ASSERT_TRUE(token.ok());
  const std::string& t = *token;
  const auto dot1 = t.find('.');
  const auto dot2 = t.find('.', dot1 + 1);

  // Another subject under the same header and signature.
  ServiceAccountTokenClaims forged = SampleClaims(WallSeconds(clock_));
  forged.issuer = "https://kubernetes.default.svc";
  forged.subject = "system:serviceaccount:kube-system:admin";
  const std::string swapped = t.substr(0, dot1 + 1) + Base64RawUrlEncode(ClaimsPayloadJson(forged)) + t.substr(dot2);
  EXPECT_EQ(issuer_.Verify(swapped).error().message, "invalid token signature");

  std::string flipped = t;
  flipped[dot2 + 5] = flipped[dot2 + 5] == 'A' ? 'B' : 'A';
  EXPECT_EQ(issuer_.Verify(flipped).error().message, "invalid token signature");

  const std::string none = Base64RawUrlEncode(R"({"alg":"none"})") + t.substr(dot1, dot2 - dot1) + ".";
  EXPECT_EQ(issuer_.Verify(none).error().message, "invalid token: the signing algorithm is not RS256");
  EXPECT_EQ(issuer_.Verify(t.substr(0, dot2)).error().message, "invalid token: compact JWS format must have three parts");
  EXPECT_EQ(issuer_.Verify(t + ".x").error().message, "invalid token: compact JWS format must have three parts");
  EXPECT_EQ(issuer_.Verify("a.b$.c").error().message, "invalid token: a part is not base64url");

  // Signed by another key: its kid is unknown here.
  ServiceAccountTokenIssuer other(TokenIssuerOptions{.clock = &clock_});
  auto foreign = other.Sign(SampleClaims(WallSeconds(clock_)));
  ASSERT_TRUE(foreign.ok()) << foreign.error().message;
  auto rejected = issuer_.Verify(*foreign);
  ASSERT_FALSE(rejected.ok());
  EXPECT_TRUE(rejected.error().message.starts_with("invalid token: no key with id ")) << rejected.error().message;
  // ... and without a kid, its signature does not verify.
  const auto f1 = foreign->find('.');
  const std::string no_kid = Base64RawUrlEncode(R"({"alg":"RS256"})") + foreign->substr(f1);
  EXPECT_EQ(issuer_.Verify(no_kid).error().message, "invalid token signature");
  EXPECT_TRUE(other.Verify(*foreign).ok());

  ServiceAccountTokenIssuer elsewhere(TokenIssuerOptions{.issuer = "https://elsewhere",
                                                         .api_audiences = {"https://kubernetes.default.svc"},
                                                         .private_key_pem = std::string(kKubeKeyPem),
                                                         .key_file = {},
                                                         .clock = &clock_});
  EXPECT_EQ(elsewhere.Verify(t).error().message, R"(token issuer "https://kubernetes.default.svc" is not "https://elsewhere")");
}

TEST(ServiceAccountToken, ApiAudiencesDefaultToTheIssuer) {
  ServiceAccountTokenIssuer issuer(TokenIssuerOptions{.issuer = "https://issuer.example"});
  EXPECT_EQ(issuer.api_audiences(), std::vector<std::string>{"https://issuer.example"});
  ServiceAccountTokenIssuer given(TokenIssuerOptions{.issuer = "https://issuer.example", .api_audiences = {"a", "b"}});
  EXPECT_EQ(given.api_audiences(), (std::vector<std::string>{"a", "b"}));
}

TEST(ServiceAccountToken, OpenIdConfigurationIsKubesDocument) {
  ServiceAccountTokenIssuer issuer(TokenIssuerOptions{});
  EXPECT_EQ(issuer.OpenIdConfigurationJson("https://127.0.0.1:6443/openid/v1/jwks"),
            R"({"issuer":"https://kubernetes.default.svc","jwks_uri":"https://127.0.0.1:6443/openid/v1/jwks",)"
            R"("response_types_supported":["id_token"],"subject_types_supported":["public"],)"
            R"("id_token_signing_alg_values_supported":["RS256"]})");
}

class KeyFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = std::filesystem::temp_directory_path() / ("kubecpp-sa-key-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string KeyFile() const { return (dir_ / "pki" / "sa.key").string(); }
  std::filesystem::path dir_;
};

TEST_F(KeyFileTest, AKeyIsGeneratedOnceWithMode0600AndReused) {
  std::string kid;
  {
    ServiceAccountTokenIssuer first(TokenIssuerOptions{.key_file = KeyFile()});
    ASSERT_TRUE(first.EnsureKey().ok());
    struct stat st {};
    ASSERT_EQ(::stat(KeyFile().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600);
    kid = *first.KeyId();
  }
  ServiceAccountTokenIssuer second(TokenIssuerOptions{.key_file = KeyFile()});
  auto again = second.KeyId();
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, kid);
  // A key file kube-apiserver would take works too.
  {
    std::ofstream(KeyFile(), std::ios::trunc) << kKubeKeyPem;
  }
  ServiceAccountTokenIssuer kube(TokenIssuerOptions{.key_file = KeyFile()});
  EXPECT_EQ(*kube.KeyId(), kKubeKeyId);
}

TEST_F(KeyFileTest, AKeyFileThatDoesNotLoadIsAnErrorNamingIt) {
  std::filesystem::create_directories(dir_ / "pki");
  {
    std::ofstream(KeyFile()) << "not a key";
  }
  ServiceAccountTokenIssuer issuer(TokenIssuerOptions{.key_file = KeyFile()});
  auto ensured = issuer.EnsureKey();
  ASSERT_FALSE(ensured.ok());
  EXPECT_EQ(ensured.error().code, 500);
  EXPECT_NE(ensured.error().message.find(KeyFile()), std::string::npos) << ensured.error().message;
  EXPECT_FALSE(issuer.Sign({}).ok());
  // An EC key is refused: tokens are RS256.
  constexpr std::string_view kEcKey = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgDBJo7YCLAFtsp+55
l7iDKuabD/BttGAP0+8agMpiCDihRANCAATo8IXH5014bUX3uWWuxBOHP/1owjJU
HsUwfPgyViXFMLuYDYwN66EU8h8DhvhYQ1yzPzPLarFx+3MGnxSFRhNY
-----END PRIVATE KEY-----
)";
  ServiceAccountTokenIssuer ec(TokenIssuerOptions{.private_key_pem = std::string(kEcKey)});
  auto refused = ec.EnsureKey();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("is not an RSA key"), std::string::npos) << refused.error().message;
}

}  // namespace
}  // namespace kube::apiserver::rest

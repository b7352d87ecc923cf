// A deterministic stand-in for libFuzzer's driver, so that every build smoke-tests the fuzz
// targets: it replays each file of the seed corpus, then feeds a bounded number of mutations
// (bit flips, byte insertions/deletions, truncations, splices of two seeds, dictionary tokens).
// The same seed gives the same inputs, so a failure reproduces.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being run, written out by the crash handler so that a failure can be replayed.
const std::string* g_current = nullptr;

void OnCrash(int sig) {
  if (g_current != nullptr) {
    if (FILE* f = std::fopen("fuzz-crash-input", "wb")) {
      std::fwrite(g_current->data(), 1, g_current->size(), f);
      std::fclose(f);
      std::fprintf(stderr, "fuzz smoke: signal %d; input written to ./fuzz-crash-input (%zu bytes)\n",
                   sig, g_current->size());
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::vector<std::string> LoadCorpus(const std::filesystem::path& dir) {
  std::vector<std::string> seeds;
  if (!std::filesystem::is_directory(dir)) return seeds;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return seeds;
}

constexpr std::string_view kTokens[] = {
    "{", "}", "[", "]", "\"", ":", ",", "null", "true", "false", "-0.5e10", "\\u0000", "\\ud800",
    "\"metadata\"", "\"labels\"", "\"op\"", "\"path\"", "\"value\"", "\"from\"", " in ", " notin ",
    "(", ")", "!", "=", "==", "!=", ">", "<", "\\", "/", "~1", "~0", "-", "1e999", "\xff", "\xc3\xa9"};

std::string Mutate(std::mt19937_64& rng, const std::vector<std::string>& seeds) {
  std::string s = seeds.empty() ? std::string() : seeds[rng() % seeds.size()];
  const int rounds = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < rounds; ++i) {
    const auto pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 7) {
      case 0:
        if (!s.empty()) s[pos % s.size()] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1: s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos), static_cast<char>(rng() % 256)); break;
      case 2:
        if (!s.empty()) s.erase(pos % s.size(), 1 + rng() % 8);
        break;
      case 3: s.resize(pos); break;
      case 4: {
        const auto& tok = kTokens[rng() % std::size(kTokens)];
        s.insert(pos, tok);
        break;
      }
      case 5:
        if (!seeds.empty()) {
          const auto& other = seeds[rng() % seeds.size()];
          const auto from = other.empty() ? 0 : rng() % other.size();
          s.insert(pos, other.substr(from, rng() % 64));
        }
        break;
      case 6:
        if (!s.empty()) s.insert(pos, s.substr(pos % s.size(), rng() % 32));
        break;
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 10000;
  std::vector<std::string> seeds;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.rfind("--iterations=", 0) == 0) {
      iterations = std::strtol(argv[i] + 13, nullptr, 10);
    } else {
      auto more = LoadCorpus(argv[i]);
      seeds.insert(seeds.end(), more.begin(), more.end());
    }
  }
  std::signal(SIGABRT, OnCrash);
  std::signal(SIGSEGV, OnCrash);
  std::signal(SIGBUS, OnCrash);
  std::signal(SIGFPE, OnCrash);
  for (const auto& s : seeds) {
    g_current = &s;
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  std::mt19937_64 rng(0x6b756265637070ULL);
  for (long i = 0; i < iterations; ++i) {
    const std::string input = Mutate(rng, seeds);
    g_current = &input;
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::printf("fuzz smoke: %zu seeds, %ld mutated inputs, no crash\n", seeds.size(), iterations);
  return 0;
}

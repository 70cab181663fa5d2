/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/*
 * wideband_spectrum: the averaged power spectrum of a synthetic multi-carrier
 * signal, computed by the FFT core on an OpenCL device, and the carriers found
 * in it. Built on libwideband-core alone (no GNU Radio).
 *
 * The host synthesises tones and QPSK carriers (root-raised-cosine pulses) at
 * known frequencies and powers plus white noise, streams the signal to the
 * device in batches, runs a batched Blackman-Harris-windowed, fft-shifted FFT
 * (one fft_plan) and sums the power of every bin with a small kernel of its own;
 * only the sums come back. Peaks above the noise floor are then matched to the
 * carriers that were put in.
 */

#include "app_common.h"
#include <gnuradio/wideband/core/device.h>
#include <gnuradio/wideband/core/fft_plan.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <complex>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace wb = gr::wideband::core;

namespace {

const char* const prog = "wideband_spectrum";
constexpr double pi = 3.14159265358979323846;
constexpr double rrc_rolloff = 0.35;
constexpr size_t rrc_span = 16; // symbols; the taps are Blackman-windowed

const char* const usage_text =
    R"(Usage: wideband_spectrum [OPTIONS]

Averaged power spectrum of a synthetic multi-carrier signal on an OpenCL device,
with the carriers it finds. The host generates tones and QPSK carriers
(root-raised-cosine pulses, roll-off 0.35) at known frequencies and powers plus
white noise; the device computes a batched Blackman-Harris-windowed FFT of
consecutive frames and averages their power spectra; the host detects the
peaks above the noise floor and compares them with the carriers it put in.
Prints the device, the carriers, and the throughput of the FFT alone (device
time, profiling events) and of the whole job (upload, FFT, average).

Options:
  -d, --device STR        OpenCL device: "" automatic (default; WIDEBAND_DEVICE
                          overrides it), "gpu", "cpu", "accelerator", "P:D" or
                          part of a device name (see wideband_devices)
  -n, --fft-size N        FFT length, any N >= 64 (default 4096)
  -f, --frames F          frames (FFTs) averaged; the signal is F*N samples
                          (default 1024)
  -b, --batch B           frames per FFT execution (default: about 8M samples)
  -c, --carriers K        number of carriers, 1 .. N/20 (default 6)
  -m, --modulation M      tone, qpsk or mixed (default mixed: tones and QPSK
                          carriers alternately)
  -s, --seed S            random seed for frequencies, powers, data and noise
                          (default 1)
  -r, --sample-rate HZ    notional sample rate; k, M, G suffixes (default 100M)
      --noise DBFS        total white-noise power in dBFS (default -40)
  -t, --threshold DB      detection threshold above the noise floor (default 8)
      --min-separation HZ detections closer than this merge into one carrier
                          (default 4 bins)
      --repeat R          FFT executions for the device-side timing
                          (default 0: automatic, about 0.3 s)
      --spectrum FILE     write the averaged spectrum as CSV (Hz, dB per bin);
                          checked before any work, it appears only when complete
  -q, --quiet             print only the result line
      --csv               print only the carrier table, as CSV
  -h, --help              this text

Exit status: 0 every carrier was found, 3 some carrier was missed,
2 usage error, 1 runtime error (e.g. no OpenCL device).

Examples:
  wideband_spectrum
  wideband_spectrum --device gpu --fft-size 65536 --frames 2048
  wideband_spectrum --fft-size 1000 --carriers 12 --modulation qpsk --seed 7
  WIDEBAND_DEVICE=cpu wideband_spectrum --quiet
  wideband_spectrum --spectrum spectrum.csv --csv
)";

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class output_mode { table, quiet, csv };

struct options {
    std::string device;
    size_t fft_size = 4096;
    size_t frames = 1024;
    size_t batch = 0;
    size_t carriers = 6;
    uint64_t seed = 1;
    double sample_rate = 100e6;
    std::string modulation = "mixed";
    double noise_dbfs = -40.0;
    double threshold_db = 8.0;
    double min_separation_hz = 0.0;
    size_t repeat = 0;
    std::string spectrum_file;
    output_mode mode = output_mode::table;
};

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

size_t parse_size(const std::string& name, const std::string& text, size_t lo, size_t hi)
{
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE || v < lo ||
        v > hi)
        throw usage_error(name + " wants an integer from " + std::to_string(lo) + " to " +
                          std::to_string(hi) + " (got \"" + text + "\")");
    return static_cast<size_t>(v);
}

double parse_double(const std::string& name, const std::string& text, bool suffixes)
{
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    std::string rest = end ? end : "";
    if (suffixes && rest.size() == 1) {
        switch (rest[0]) {
        case 'k':
        case 'K':
            v *= 1e3;
            rest.clear();
            break;
        case 'M':
            v *= 1e6;
            rest.clear();
            break;
        case 'G':
        case 'g':
            v *= 1e9;
            rest.clear();
            break;
        default:
            break;
        }
    }
    if (text.empty() || end == text.c_str() || !rest.empty() || !std::isfinite(v))
        throw usage_error(name + " wants a number" +
                          (suffixes ? " (k, M, G suffixes allowed)" : "") + " (got \"" +
                          text + "\")");
    return v;
}

options parse_args(int argc, char** argv, bool& help)
{
    options o;
    help = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], value;
        bool has_value = false;
        const auto eq = arg.find('=');
        if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            has_value = true;
        }
        auto next = [&]() -> std::string {
            if (has_value)
                return value;
            if (i + 1 >= argc)
                throw usage_error(arg + " needs a value");
            return argv[++i];
        };
        auto flag = [&]() {
            if (has_value)
                throw usage_error(arg + " takes no value");
        };
        if (arg == "-h" || arg == "--help") {
            flag();
            help = true;
        } else if (arg == "-d" || arg == "--device") {
            o.device = next();
        } else if (arg == "-n" || arg == "--fft-size") {
            o.fft_size = parse_size(arg, next(), 64, size_t(1) << 26);
        } else if (arg == "-f" || arg == "--frames") {
            o.frames = parse_size(arg, next(), 1, size_t(1) << 30);
        } else if (arg == "-b" || arg == "--batch") {
            o.batch = parse_size(arg, next(), 1, size_t(1) << 30);
        } else if (arg == "-c" || arg == "--carriers") {
            o.carriers = parse_size(arg, next(), 1, 100000);
        } else if (arg == "-m" || arg == "--modulation") {
            o.modulation = next();
            if (o.modulation != "tone" && o.modulation != "qpsk" &&
                o.modulation != "mixed")
                throw usage_error("--modulation wants tone, qpsk or mixed (got \"" +
                                  o.modulation + "\")");
        } else if (arg == "-s" || arg == "--seed") {
            o.seed = parse_size(arg, next(), 0, std::numeric_limits<size_t>::max());
        } else if (arg == "-r" || arg == "--sample-rate") {
            o.sample_rate = parse_double(arg, next(), true);
            if (o.sample_rate <= 0)
                throw usage_error("--sample-rate must be positive");
        } else if (arg == "--noise") {
            o.noise_dbfs = parse_double(arg, next(), false);
            if (o.noise_dbfs > 20 || o.noise_dbfs < -200)
                throw usage_error("--noise wants a power from -200 to 20 dBFS");
        } else if (arg == "-t" || arg == "--threshold") {
            o.threshold_db = parse_double(arg, next(), false);
            if (o.threshold_db <= 0 || o.threshold_db > 200)
                throw usage_error(
                    "--threshold wants a value in dB above 0 and up to 200");
        } else if (arg == "--min-separation") {
            o.min_separation_hz = parse_double(arg, next(), true);
            if (o.min_separation_hz < 0)
                throw usage_error("--min-separation must not be negative");
        } else if (arg == "--repeat") {
            o.repeat = parse_size(arg, next(), 0, 1000000);
        } else if (arg == "--spectrum") {
            o.spectrum_file = next();
            if (o.spectrum_file.empty())
                throw usage_error("--spectrum needs a file name");
        } else if (arg == "-q" || arg == "--quiet") {
            flag();
            o.mode = output_mode::quiet;
        } else if (arg == "--csv") {
            flag();
            o.mode = output_mode::csv;
        } else {
            throw usage_error("unknown argument \"" + arg + "\" (see --help)");
        }
    }
    if (help)
        return o;
    const size_t max_carriers = o.fft_size / 20;
    if (o.carriers > max_carriers)
        throw usage_error("--carriers " + std::to_string(o.carriers) +
                          " needs --fft-size " + std::to_string(o.carriers * 20) +
                          " or more (16 bins between carriers)");
    if (o.batch > o.frames)
        throw usage_error("--batch " + std::to_string(o.batch) +
                          " is more than --frames " + std::to_string(o.frames));
    return o;
}

// ---------------------------------------------------------------------------
// Synthetic signal
// ---------------------------------------------------------------------------

struct carrier {
    bool qpsk = false;
    double freq_hz = 0;      // centre frequency, relative to the band centre
    double power_dbfs = 0;   // total power
    size_t sps = 0;          // samples per symbol (QPSK)
    double bandwidth_hz = 0; // occupied bandwidth (QPSK: (1 + rolloff) * symbol rate)
};

// xoshiro256** (fast, good enough for noise and symbols), seeded by splitmix64.
class fast_rng
{
public:
    explicit fast_rng(uint64_t seed)
    {
        for (auto& s : d_s) {
            seed += 0x9e3779b97f4a7c15ull;
            uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            s = z ^ (z >> 31);
        }
    }
    uint64_t next()
    {
        const uint64_t result = rotl(d_s[1] * 5, 7) * 9;
        const uint64_t t = d_s[1] << 17;
        d_s[2] ^= d_s[0];
        d_s[3] ^= d_s[1];
        d_s[1] ^= d_s[2];
        d_s[0] ^= d_s[3];
        d_s[2] ^= t;
        d_s[3] = rotl(d_s[3], 45);
        return result;
    }
    //! Uniform in (0, 1].
    double uniform() { return (double(next() >> 11) + 1.0) * 0x1.0p-53; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t d_s[4];
};

std::vector<carrier> make_carriers(const options& o)
{
    std::mt19937_64 rng(o.seed);
    std::uniform_real_distribution<double> jitter(-0.2, 0.2);
    const size_t k = o.carriers;
    const double fs = o.sample_rate;
    const double spacing = 0.8 * fs / double(k);
    // Powers from -10 dBFS down, 4 dB apart (closer for many carriers), shuffled.
    const double step = k > 1 ? std::min(4.0, 24.0 / double(k - 1)) : 0.0;
    std::vector<double> powers(k);
    for (size_t i = 0; i < k; ++i)
        powers[i] = -10.0 - step * double(i);
    std::shuffle(powers.begin(), powers.end(), rng);
    // QPSK occupies at most 30% of the spacing; symbol rates fs/sps with sps in
    // base, 2*base, 4*base.
    const size_t base_sps =
        std::max<size_t>(2, size_t(std::ceil(fs * (1 + rrc_rolloff) / (0.3 * spacing))));

    std::vector<carrier> cs(k);
    for (size_t i = 0; i < k; ++i) {
        carrier& c = cs[i];
        c.freq_hz = -0.4 * fs + (double(i) + 0.5) * spacing + jitter(rng) * spacing;
        c.power_dbfs = powers[i];
        c.qpsk = o.modulation == "qpsk" || (o.modulation == "mixed" && i % 2 == 1);
        if (c.qpsk) {
            c.sps = base_sps << ((i / 2) % 3);
            c.bandwidth_hz = (1 + rrc_rolloff) * fs / double(c.sps);
        }
    }
    return cs;
}

// Root-raised-cosine impulse response at t symbols.
double rrc(double t, double beta)
{
    if (std::abs(t) < 1e-9)
        return 1.0 - beta + 4.0 * beta / pi;
    if (std::abs(std::abs(4.0 * beta * t) - 1.0) < 1e-9)
        return beta / std::sqrt(2.0) *
               ((1 + 2 / pi) * std::sin(pi / (4 * beta)) +
                (1 - 2 / pi) * std::cos(pi / (4 * beta)));
    return (std::sin(pi * t * (1 - beta)) +
            4 * beta * t * std::cos(pi * t * (1 + beta))) /
           (pi * t * (1 - 16 * beta * beta * t * t));
}

// Adds one carrier to x (sample rate fs).
void add_carrier(std::vector<std::complex<float>>& x,
                 const carrier& c,
                 double fs,
                 fast_rng& rng)
{
    const size_t total = x.size();
    const double amplitude = std::sqrt(std::pow(10.0, c.power_dbfs / 10.0));
    const double phase0 = 2 * pi * rng.uniform();
    const std::complex<double> rot = std::polar(1.0, 2 * pi * c.freq_hz / fs);
    std::complex<double> ph = std::polar(1.0, phase0);

    if (!c.qpsk) {
        for (size_t n = 0; n < total; ++n) {
            x[n] += std::complex<float>(amplitude * ph);
            ph *= rot;
            if ((n & 1023) == 1023)
                ph /= std::abs(ph);
        }
        return;
    }

    // Pulse-shaped QPSK: x[n] = sum_k a_k h[n - k L + S L / 2], taps normalised
    // so that the output has unit power for random symbols.
    const size_t L = c.sps, SL = rrc_span * L, half = SL / 2;
    std::vector<double> h(SL + 1);
    double energy = 0;
    for (size_t m = 0; m <= SL; ++m) {
        // The Blackman taper keeps the truncated pulse's sidelobes below the
        // noise floor, which is 60 dB or more under the strongest carrier.
        const double taper = 0.42 - 0.5 * std::cos(2 * pi * double(m) / double(SL)) +
                             0.08 * std::cos(4 * pi * double(m) / double(SL));
        h[m] = taper * rrc((double(m) - double(half)) / double(L), rrc_rolloff);
        energy += h[m] * h[m];
    }
    for (auto& v : h)
        v *= std::sqrt(double(L) / energy);
    // Symbols k = -span/2 - 1 .. total/L + span/2 + 1, stored from index 0.
    const size_t first = rrc_span / 2 + 1;
    std::vector<std::complex<double>> sym(total / L + rrc_span + 3);
    const double a = std::sqrt(0.5);
    for (auto& s : sym) {
        const uint64_t bits = rng.next();
        s = { (bits & 1) ? a : -a, (bits & 2) ? a : -a };
    }
    for (size_t n = 0; n < total; ++n) {
        std::complex<double> v = 0;
        // symbols k with 0 <= n - kL + half <= SL
        const size_t k_hi = (n + half) / L; // largest k with kL <= n + half
        for (size_t k = k_hi + first, m = n + half - k_hi * L; m <= SL; --k, m += L)
            v += sym[k] * h[m];
        x[n] += std::complex<float>(amplitude * v * ph);
        ph *= rot;
        if ((n & 1023) == 1023)
            ph /= std::abs(ph);
    }
}

std::vector<std::complex<float>>
synthesize(const std::vector<carrier>& cs, size_t total, const options& o)
{
    std::vector<std::complex<float>> x(total);
    fast_rng rng(o.seed * 0x2545f4914f6cdd1dull + 12345);
    // White complex Gaussian noise (Box-Muller), variance noise power.
    const double sigma = std::sqrt(std::pow(10.0, o.noise_dbfs / 10.0) / 2.0);
    for (size_t n = 0; n < total; ++n) {
        const double r = sigma * std::sqrt(-2.0 * std::log(rng.uniform()));
        const double t = 2 * pi * rng.uniform();
        x[n] = { float(r * std::cos(t)), float(r * std::sin(t)) };
    }
    for (const auto& c : cs)
        add_carrier(x, c, o.sample_rate, rng);
    return x;
}

// Periodic 4-term Blackman-Harris window (sidelobes below -92 dB).
std::vector<float> blackman_harris(size_t n)
{
    std::vector<float> w(n);
    for (size_t i = 0; i < n; ++i) {
        const double x = 2 * pi * double(i) / double(n);
        w[i] = float(0.35875 - 0.48829 * std::cos(x) + 0.14128 * std::cos(2 * x) -
                     0.01168 * std::cos(3 * x));
    }
    return w;
}

// ---------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------

struct detection {
    size_t lo = 0, hi = 0; // bins above the threshold, inclusive
    size_t peak = 0;       // strongest bin
    double freq_hz = 0;    // power-weighted centre
    double power = 0;      // band power less the noise in it (linear)
    double snr_db = 0;     // band power over the noise power in the band
    int matched = -1;      // index of the carrier it was matched to
};

double db(double v) { return 10.0 * std::log10(std::max(v, 1e-300)); }

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    const auto mid = v.begin() + v.size() / 2;
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

/*
 * Noise floor: the median bin of the spectrum without the bins near anything
 * above the threshold, corrected for the median of an average of `frames`
 * exponential variables (about mean * (1 - 1/(3 frames))).
 */
double noise_floor(const std::vector<double>& p, size_t frames, double threshold)
{
    const double correction = 1.0 - 1.0 / (3.0 * double(frames));
    const double first = median(p) / correction;
    const size_t n = p.size(), guard = 4;
    std::vector<bool> occupied(n, false);
    for (size_t k = 0; k < n; ++k)
        if (p[k] > first * threshold)
            for (size_t j = k > guard ? k - guard : 0; j <= std::min(n - 1, k + guard);
                 ++j)
                occupied[j] = true;
    std::vector<double> quiet;
    for (size_t k = 0; k < n; ++k)
        if (!occupied[k])
            quiet.push_back(p[k]);
    if (quiet.size() < n / 4)
        return first;
    return median(quiet) / correction;
}

std::vector<detection> detect(const std::vector<double>& p,
                              double floor,
                              double threshold,
                              size_t min_sep_bins,
                              double fs)
{
    const size_t n = p.size();
    const double level = floor * threshold;
    std::vector<size_t> peaks;
    for (size_t k = 0; k < n; ++k) {
        const double left = k > 0 ? p[k - 1] : 0.0, right = k + 1 < n ? p[k + 1] : 0.0;
        if (p[k] > level && p[k] >= left && p[k] > right)
            peaks.push_back(k);
    }
    std::sort(
        peaks.begin(), peaks.end(), [&](size_t a, size_t b) { return p[a] > p[b]; });

    std::vector<detection> found;
    std::vector<bool> claimed(n, false);
    for (size_t k : peaks) {
        if (claimed[k])
            continue;
        size_t lo = k, hi = k;
        while (lo > 0 && p[lo - 1] > level)
            --lo;
        while (hi + 1 < n && p[hi + 1] > level)
            ++hi;
        for (size_t j = lo; j <= hi; ++j)
            claimed[j] = true;
        // Merge with a stronger detection closer than the minimum separation.
        bool merged = false;
        for (auto& d : found) {
            const size_t gap = lo > d.hi ? lo - d.hi : (d.lo > hi ? d.lo - hi : 0);
            if (gap < min_sep_bins) {
                d.lo = std::min(d.lo, lo);
                d.hi = std::max(d.hi, hi);
                merged = true;
                break;
            }
        }
        if (!merged) {
            detection d;
            d.lo = lo;
            d.hi = hi;
            d.peak = k;
            found.push_back(d);
        }
    }
    const double bin_hz = fs / double(n);
    const double centre = double(n / 2);
    for (auto& d : found) {
        double sum = 0, moment = 0;
        for (size_t j = d.lo; j <= d.hi; ++j) {
            const double excess = std::max(p[j] - floor, 0.0);
            sum += excess;
            moment += excess * double(j);
        }
        const double bins = double(d.hi - d.lo + 1);
        d.freq_hz = ((sum > 0 ? moment / sum : double(d.peak)) - centre) * bin_hz;
        d.power = sum;
        d.snr_db = db(sum / (floor * bins));
    }
    std::sort(found.begin(), found.end(), [](const detection& a, const detection& b) {
        return a.freq_hz < b.freq_hz;
    });
    return found;
}

// ---------------------------------------------------------------------------
// Output helpers
// ---------------------------------------------------------------------------

std::string fmt(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* format, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, format);
    std::vsnprintf(buf, sizeof buf, format, ap);
    va_end(ap);
    return buf;
}

// The temporary file that a signal ending the program (Ctrl-C, kill, a closed
// pipe) must not leave behind; "" when there is none.
char temp_to_remove_on_signal[4096];

void remove_temp_and_die(int signal_number)
{
    ::unlink(temp_to_remove_on_signal);
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

/*
 * The --spectrum file, made before any work so that a path that cannot be
 * written fails at once. A regular file is written under a temporary name
 * beside it and renamed into place once complete, so that a failed or
 * interrupted run leaves no half-written file (an earlier one stays as it
 * was); anything else (a pipe, /dev/stdout) is written directly.
 */
class output_file
{
public:
    explicit output_file(const std::string& path) : d_path(path)
    {
        struct stat st;
        const bool exists = ::stat(path.c_str(), &st) == 0;
        if (!exists && errno != ENOENT)
            fail(errno);
        if (exists && S_ISDIR(st.st_mode))
            fail(EISDIR);
        if (exists && !S_ISREG(st.st_mode)) {
            d_stream = std::fopen(path.c_str(), "w");
            if (!d_stream)
                fail(errno);
            return;
        }
        // A read-only file is refused, as writing it in place would be.
        if (exists && ::access(path.c_str(), W_OK) != 0)
            fail(errno);
        // Through a symbolic link: the link stays, the file it names is replaced.
        d_final = exists ? std::filesystem::canonical(path) : std::filesystem::path(path);
        if (d_final.filename().empty())
            fail(EISDIR);
        std::filesystem::path folder = d_final.parent_path();
        if (folder.empty())
            folder = ".";
        std::string temp =
            (folder / ("." + d_final.filename().string() + ".XXXXXX")).string();
        const int fd = ::mkstemp(temp.data());
        if (fd < 0)
            fail(errno);
        d_temp = temp;
        if (temp.size() < sizeof temp_to_remove_on_signal) {
            std::strcpy(temp_to_remove_on_signal, temp.c_str());
            for (int signal_number : { SIGINT, SIGTERM, SIGHUP, SIGPIPE })
                std::signal(signal_number, remove_temp_and_die);
        }
        // mkstemp makes the file 0600: give it the mode it has or would get.
        const mode_t mode = exists ? (st.st_mode & 07777) : (0666 & ~current_umask());
        if (::fchmod(fd, mode) != 0 || !(d_stream = ::fdopen(fd, "w"))) {
            const int error = errno;
            ::close(fd);
            fail(error);
        }
    }
    output_file(const output_file&) = delete;
    output_file& operator=(const output_file&) = delete;

    ~output_file()
    {
        if (d_stream)
            std::fclose(d_stream);
        if (!d_temp.empty()) {
            ::unlink(d_temp.c_str());
            forget_temp();
        }
    }

    FILE* stream() const { return d_stream; }

    //! Writes out what is buffered and, for a regular file, renames it into place.
    void commit()
    {
        bool written = std::fflush(d_stream) == 0 && !std::ferror(d_stream);
        // On disk before the rename, so that a crash cannot leave an empty file.
        if (written && !d_temp.empty())
            written = ::fsync(::fileno(d_stream)) == 0;
        const int write_error = errno;
        const bool closed = std::fclose(d_stream) == 0;
        d_stream = nullptr;
        if (!written || !closed)
            fail(written ? errno : write_error);
        if (!d_temp.empty()) {
            if (::rename(d_temp.c_str(), d_final.c_str()) != 0)
                fail(errno);
            forget_temp();
        }
    }

private:
    void forget_temp()
    {
        d_temp.clear();
        temp_to_remove_on_signal[0] = '\0';
    }

    static mode_t current_umask()
    {
        // Reading the umask means setting it; nothing else runs yet.
        const mode_t mask = ::umask(0);
        ::umask(mask);
        return mask;
    }

    [[noreturn]] void fail(int error) const
    {
        throw std::runtime_error("cannot write " + d_path + ": " + std::strerror(error));
    }

    std::string d_path;
    std::filesystem::path d_final; // where the finished file goes
    std::string d_temp;            // "" once renamed, or when written directly
    FILE* d_stream = nullptr;
};

/*
 * The host holds the whole signal, and beside it, while a QPSK carrier is
 * added, that carrier's symbols and pulse: refuse at once what this machine
 * cannot hold, rather than after minutes of synthesis or in the OOM killer.
 */
void check_host_memory(const options& o, const std::vector<carrier>& cs)
{
    const uint64_t total = uint64_t(o.frames) * o.fft_size;
    uint64_t carrier_bytes = 0;
    for (const auto& c : cs)
        if (c.qpsk)
            carrier_bytes = std::max<uint64_t>(
                carrier_bytes,
                (total / c.sps + rrc_span + 3) * sizeof(std::complex<double>) +
                    (rrc_span * c.sps + 1) * sizeof(double));
    const uint64_t needed = total * sizeof(std::complex<float>) + carrier_bytes;
    const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_bytes <= 0)
        return; // unknown: the allocation will tell
    const uint64_t physical = uint64_t(pages) * uint64_t(page_bytes);
    if (needed > physical)
        throw usage_error(fmt("--frames %zu x --fft-size %zu needs %.1f GiB of host "
                              "memory for the signal; this machine has %.1f GiB",
                              o.frames,
                              o.fft_size,
                              double(needed) / double(1ull << 30),
                              double(physical) / double(1ull << 30)));
}

// Adds |x|^2 of frames g, g + groups, g + 2 groups, ... of a batch to
// partial[g * n + k], for bin k = global id 0 and g = global id 1.
const char* const power_sum_source = R"(
__kernel void power_sum(__global const float2* x,
                        __global float* partial,
                        const uint n,
                        const uint frames,
                        const uint groups)
{
    const uint k = get_global_id(0);
    const uint g = get_global_id(1);
    if (k >= n)
        return;
    float s = 0.0f;
    for (uint f = g; f < frames; f += groups) {
        const float2 v = x[(size_t)f * n + k];
        s += v.x * v.x + v.y * v.y;
    }
    partial[(size_t)g * n + k] += s;
}
)";

cl::Kernel build_power_sum(const wb::device_context& ctx)
{
    cl::Program program(ctx.context(), std::string(power_sum_source));
    try {
        program.build({ ctx.device() }, "");
    } catch (const cl::Error& err) {
        std::string log;
        try {
            log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(ctx.device());
        } catch (const cl::Error&) {
        }
        throw std::runtime_error("OpenCL build of the power_sum kernel failed on " +
                                 ctx.info().name + " (" + wb::cl_error_name(err.err()) +
                                 "). Compiler log:\n" + log);
    }
    return cl::Kernel(program, "power_sum");
}

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t)
{
    return std::chrono::duration<double>(clock_type::now() - t).count();
}

int run(const options& o)
{
    const size_t n = o.fft_size;
    const double fs = o.sample_rate;
    const bool table = o.mode == output_mode::table;

    // Everything that can fail is tried before the work (the synthesis, the FFTs):
    // the output file and host memory at once, then the device, its limits, the
    // plan, the kernel and the buffers.
    std::optional<output_file> spectrum_out;
    if (!o.spectrum_file.empty())
        spectrum_out.emplace(o.spectrum_file);
    const std::vector<carrier> cs = make_carriers(o);
    check_host_memory(o, cs);

    auto ctx = wb::device_context::get(o.device);
    const wb::device_info& dev = ctx->info();
    if (table) {
        std::printf("device    %s  %s (%s, %s, %s)\n",
                    dev.address().c_str(),
                    dev.name.c_str(),
                    dev.type_name().c_str(),
                    dev.platform_name.c_str(),
                    dev.version.c_str());
        std::fflush(stdout);
    }

    // Batches of about 8 M samples (64 MiB): the four buffers the timing cycles
    // through (256 MiB) are well beyond a GPU's L2 cache. Four buffers and the
    // plan's two temporaries must fit, with room to spare.
    size_t batch = o.batch;
    if (batch == 0)
        batch = std::min(o.frames, std::max<size_t>(1, (size_t(8) << 20) / n));
    const uint64_t buffer_bytes = uint64_t(batch) * n * 8;
    const uint64_t buffer_cap = std::min(dev.max_alloc_bytes, dev.global_mem_bytes / 8);
    if (buffer_bytes > buffer_cap) {
        if (o.batch != 0)
            throw usage_error(
                fmt("--batch %zu needs %.1f MiB buffers; %s allows %.1f MiB",
                    batch,
                    double(buffer_bytes) / 1048576.0,
                    dev.name.c_str(),
                    double(buffer_cap) / 1048576.0));
        batch = std::max<size_t>(1, size_t(buffer_cap / (uint64_t(n) * 8)));
        if (uint64_t(batch) * n * 8 > buffer_cap)
            throw std::runtime_error(
                fmt("one %zu-point frame does not fit on %s", n, dev.name.c_str()));
    }
    const size_t total = o.frames * n;

    // Plan: batched forward FFT with the window and the shift fused in.
    const std::vector<float> window = blackman_harris(n);
    wb::fft_options fo;
    fo.direction = wb::fft_direction::forward;
    fo.batch = batch;
    fo.window = window;
    fo.shift = true;
    const size_t compiled0 = ctx->compilations(), loaded0 = ctx->disk_cache_loads();
    const auto t_plan = clock_type::now();
    wb::fft_plan plan(ctx, n, fo);
    const double plan_s = seconds_since(t_plan);
    const size_t compiled = ctx->compilations() - compiled0;
    const size_t loaded = ctx->disk_cache_loads() - loaded0;

    // The power average: a small kernel of this program's own (the core has no
    // reductions yet), so that only groups x n partial sums come back.
    const auto t_power = clock_type::now();
    cl::Kernel power_sum = build_power_sum(*ctx);
    const double power_s = seconds_since(t_power);
    const size_t groups = std::clamp<size_t>((size_t(1) << 18) / n, 1, batch);
    const size_t local = std::min<size_t>(64, dev.max_work_group_size);
    const size_t bins_rounded = (n + local - 1) / local * local;

    cl::CommandQueue queue = ctx->create_queue(true);
    const size_t batch_bytes = batch * n * sizeof(std::complex<float>);
    cl::Buffer in[2], out[2];
    for (int s = 0; s < 2; ++s) {
        in[s] = cl::Buffer(ctx->context(), CL_MEM_READ_ONLY, batch_bytes);
        out[s] = cl::Buffer(ctx->context(), CL_MEM_READ_WRITE, batch_bytes);
    }
    cl::Buffer partial(ctx->context(), CL_MEM_READ_WRITE, groups * n * sizeof(float));

    // Signal.
    const auto t_gen = clock_type::now();
    const std::vector<std::complex<float>> signal = synthesize(cs, total, o);
    const double gen_s = seconds_since(t_gen);

    if (table) {
        size_t tones = 0;
        for (const auto& c : cs)
            tones += !c.qpsk;
        std::printf(
            "signal    %zu carriers (%zu tones, %zu QPSK RRC %.2f), noise %.1f dBFS, "
            "%.3f Msps, %zu samples (%.3f ms), seed %llu; generated in %.2f s\n",
            cs.size(),
            tones,
            cs.size() - tones,
            rrc_rolloff,
            o.noise_dbfs,
            fs / 1e6,
            total,
            double(total) / fs * 1e3,
            (unsigned long long)o.seed,
            gen_s);
        std::printf(
            "spectrum  %zu-point FFT, Blackman-Harris window, %zu frames averaged "
            "in batches of %zu, bin %.3f kHz\n",
            n,
            o.frames,
            batch,
            fs / double(n) / 1e3);
        std::printf("plan      %s; built in %.2f s (%zu program%s compiled, %zu from the "
                    "disk cache)\n",
                    plan.describe().c_str(),
                    plan_s,
                    compiled,
                    compiled == 1 ? "" : "s",
                    loaded);
        std::printf(
            "average   power summed on the device by %zu x %zu work-items, "
            "%zu partial sums per bin added on the host; kernel built in %.2f s\n",
            bins_rounded,
            groups,
            groups,
            power_s);
        std::fflush(stdout);
    }

    // Device-side throughput: back-to-back executions alternating between two
    // input/output pairs, timed by profiling events (from a marker after the
    // uploads to the last kernel's end). The first execution on each pair (not
    // timed) lets drivers finish lazy set-up.
    const auto t_warm = clock_type::now();
    for (int s = 0; s < 2; ++s) {
        queue.enqueueWriteBuffer(in[s], CL_TRUE, 0, batch_bytes, signal.data());
        plan.enqueue(queue, in[s], out[s]).wait();
    }
    const double warm_s = seconds_since(t_warm);
    size_t repeat = o.repeat;
    if (repeat == 0) {
        const auto t1 = clock_type::now();
        plan.enqueue(queue, in[0], out[0]).wait();
        const double one = std::max(seconds_since(t1), 1e-6);
        repeat = size_t(std::clamp(0.3 / one, 4.0, 2000.0));
    }
    cl::Event start, last;
    queue.enqueueMarkerWithWaitList(nullptr, &start);
    const auto t_dev = clock_type::now();
    for (size_t r = 0; r < repeat; ++r)
        last = plan.enqueue(queue, in[r & 1], out[r & 1]);
    queue.finish();
    const double host_dev_s = seconds_since(t_dev);
    double device_s = 0;
    bool profiled = true;
    try {
        const cl_ulong t0 = start.getProfilingInfo<CL_PROFILING_COMMAND_END>();
        const cl_ulong t1 = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
        device_s = t1 > t0 ? double(t1 - t0) * 1e-9 : 0.0;
    } catch (const cl::Error&) {
        device_s = 0;
    }
    if (device_s <= 0) {
        profiled = false;
        device_s = host_dev_s;
    }
    const double device_msps = double(repeat * batch * n) / device_s / 1e6;

    // End to end: upload every batch, transform it, add |X|^2 of its frames into
    // the partial sums on the device; read the sums back once and add them up.
    const size_t chunks = (o.frames + batch - 1) / batch;
    const auto t_e2e = clock_type::now();
    queue.enqueueFillBuffer(partial, 0.0f, 0, groups * n * sizeof(float));
    for (size_t c = 0; c < chunks; ++c) {
        const int s = int(c & 1);
        const size_t nb = std::min(batch, o.frames - c * batch);
        queue.enqueueWriteBuffer(
            in[s], CL_FALSE, 0, nb * n * 8, signal.data() + c * batch * n);
        plan.enqueue(queue, in[s], out[s], {}, nb);
        power_sum.setArg(0, out[s]);
        power_sum.setArg(1, partial);
        power_sum.setArg(2, cl_uint(n));
        power_sum.setArg(3, cl_uint(nb));
        power_sum.setArg(4, cl_uint(groups));
        queue.enqueueNDRangeKernel(power_sum,
                                   cl::NullRange,
                                   cl::NDRange(bins_rounded, groups),
                                   cl::NDRange(local, 1));
        queue.flush();
    }
    std::vector<float> sums(groups * n);
    queue.enqueueReadBuffer(
        partial, CL_TRUE, 0, sums.size() * sizeof(float), sums.data());
    std::vector<double> acc(n, 0.0);
    for (size_t g = 0; g < groups; ++g)
        for (size_t k = 0; k < n; ++k)
            acc[k] += double(sums[g * n + k]);
    const double e2e_s = seconds_since(t_e2e);
    const double e2e_msps = double(total) / e2e_s / 1e6;

    // Power per bin in dBFS-consistent units: the bins of a carrier add up to its
    // power, those of white noise to the noise power.
    double w2 = 0;
    for (float w : window)
        w2 += double(w) * double(w);
    std::vector<double> p(n);
    for (size_t k = 0; k < n; ++k)
        p[k] = acc[k] / (double(o.frames) * double(n) * w2);

    const double threshold = std::pow(10.0, o.threshold_db / 10.0);
    const double floor = noise_floor(p, o.frames, threshold);
    const double bin_hz = fs / double(n);
    const size_t min_sep_bins =
        o.min_separation_hz > 0 ? size_t(std::ceil(o.min_separation_hz / bin_hz)) : 4;
    std::vector<detection> found = detect(p, floor, threshold, min_sep_bins, fs);

    // Match each carrier to the nearest free detection within its tolerance.
    struct match {
        int detection = -1;
        double tolerance_hz = 0;
    };
    std::vector<match> matches(cs.size());
    size_t missed = 0;
    for (size_t i = 0; i < cs.size(); ++i) {
        matches[i].tolerance_hz = std::max(3.0 * bin_hz, 0.25 * cs[i].bandwidth_hz);
        double best = matches[i].tolerance_hz;
        for (size_t j = 0; j < found.size(); ++j) {
            const double err = std::abs(found[j].freq_hz - cs[i].freq_hz);
            if (found[j].matched < 0 && err <= best) {
                best = err;
                matches[i].detection = int(j);
            }
        }
        if (matches[i].detection >= 0)
            found[matches[i].detection].matched = int(i);
        else
            ++missed;
    }
    size_t unexpected = 0;
    for (const auto& d : found)
        unexpected += d.matched < 0;

    if (spectrum_out) {
        std::fprintf(spectrum_out->stream(), "frequency_hz,power_db_per_bin\n");
        for (size_t k = 0; k < n; ++k)
            std::fprintf(spectrum_out->stream(),
                         "%.3f,%.3f\n",
                         (double(k) - double(n / 2)) * bin_hz,
                         db(p[k]));
        spectrum_out->commit();
    }

    if (o.mode == output_mode::csv) {
        std::printf(
            "carrier,type,expected_hz,detected_hz,error_hz,expected_dbfs,power_dbfs,"
            "snr_db,found\n");
        for (size_t i = 0; i < cs.size(); ++i) {
            const auto& c = cs[i];
            if (matches[i].detection >= 0) {
                const auto& d = found[matches[i].detection];
                std::printf("%zu,%s,%.1f,%.1f,%.1f,%.2f,%.2f,%.2f,1\n",
                            i + 1,
                            c.qpsk ? "qpsk" : "tone",
                            c.freq_hz,
                            d.freq_hz,
                            d.freq_hz - c.freq_hz,
                            c.power_dbfs,
                            db(d.power),
                            d.snr_db);
            } else {
                std::printf("%zu,%s,%.1f,,,%.2f,,,0\n",
                            i + 1,
                            c.qpsk ? "qpsk" : "tone",
                            c.freq_hz,
                            c.power_dbfs);
            }
        }
        for (const auto& d : found)
            if (d.matched < 0)
                std::printf(",unexpected,,%.1f,,,%.2f,%.2f,0\n",
                            d.freq_hz,
                            db(d.power),
                            d.snr_db);
    }

    if (table) {
        std::printf("\n carrier  type  bandwidth   expected MHz  detected MHz  error kHz"
                    "  power dBFS  measured  SNR dB\n");
        for (size_t i = 0; i < cs.size(); ++i) {
            const auto& c = cs[i];
            const std::string bw =
                c.qpsk ? fmt("%.3f MHz", c.bandwidth_hz / 1e6) : std::string("-");
            if (matches[i].detection >= 0) {
                const auto& d = found[matches[i].detection];
                std::printf(" %7zu  %-4s  %9s  %13.4f  %12.4f  %9.1f  %10.1f  %8.1f  "
                            "%6.1f  found\n",
                            i + 1,
                            c.qpsk ? "QPSK" : "tone",
                            bw.c_str(),
                            c.freq_hz / 1e6,
                            d.freq_hz / 1e6,
                            (d.freq_hz - c.freq_hz) / 1e3,
                            c.power_dbfs,
                            db(d.power),
                            d.snr_db);
            } else {
                std::printf(
                    " %7zu  %-4s  %9s  %13.4f  %12s  %9s  %10.1f  %8s  %6s  MISSED\n",
                    i + 1,
                    c.qpsk ? "QPSK" : "tone",
                    bw.c_str(),
                    c.freq_hz / 1e6,
                    "-",
                    "-",
                    c.power_dbfs,
                    "-",
                    "-");
            }
        }
        for (const auto& d : found)
            if (d.matched < 0)
                std::printf(" %7s  %-4s  %9s  %13s  %12.4f  %9s  %10s  %8.1f  %6.1f  "
                            "unexpected\n",
                            "?",
                            "?",
                            "",
                            "-",
                            d.freq_hz / 1e6,
                            "",
                            "",
                            db(d.power),
                            d.snr_db);
        std::printf(
            "\nnoise     floor %.1f dB per bin (%.1f dBFS in the band; %.1f dBFS put "
            "in), threshold %.1f dB above it; %zu detections, %zu unexpected\n",
            db(floor),
            db(floor * double(n)),
            o.noise_dbfs,
            o.threshold_db,
            found.size(),
            unexpected);
        std::printf(
            "FFT       %.1f Msamples/s on the device (%zu executions of %zu x %zu "
            "over %.0f MiB of buffers, %s), %.2fx real time at %.3f Msps; first "
            "executions %.3f s\n",
            device_msps,
            repeat,
            batch,
            n,
            4.0 * double(batch_bytes) / 1048576.0,
            profiled ? "profiling events" : "host clock",
            device_msps * 1e6 / fs,
            fs / 1e6,
            warm_s);
        std::printf("end2end   %.1f Msamples/s (upload, FFT and power average of %zu "
                    "samples in %.3f s)\n",
                    e2e_msps,
                    total,
                    e2e_s);
    }

    const std::string verdict =
        missed == 0 ? fmt("all %zu carriers found", cs.size())
                    : fmt("%zu of %zu carriers missed", missed, cs.size());
    if (table)
        std::printf("result    %s\n", verdict.c_str());
    else if (o.mode == output_mode::quiet)
        std::printf("%s (%s; FFT %.1f Msamples/s on the device, %.1f end to end)\n",
                    verdict.c_str(),
                    dev.name.c_str(),
                    device_msps,
                    e2e_msps);
    return missed == 0 ? 0 : 3;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        bool help = false;
        const options o = parse_args(argc, argv, help);
        if (help) {
            std::fputs(usage_text, stdout);
            return 0;
        }
        return run(o);
    } catch (const usage_error& e) {
        std::fprintf(stderr, "%s: %s\n", prog, e.what());
        return 2;
    } catch (...) {
        return app_common::report_error(prog);
    }
}

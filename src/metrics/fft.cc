#include "metrics/fft.h"

#include <bit>
#include <cmath>
#include <complex>
#include <numbers>
#include <span>
#include <utility>
#include <vector>

namespace wasserwarp {
namespace {

using Complex = std::complex<double>;

// Spelled out because std::complex's operator* goes through the C99 Annex G
// NaN/infinity recovery (__muldc3), several times slower in the butterflies.
Complex Multiply(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// exp(-2 pi i k / n) for k < n / 2, each from its own cos and sin rather
// than by repeated multiplication, whose rounding would grow with n.
std::vector<Complex> Twiddles(size_t n) {
  std::vector<Complex> twiddles(n / 2);
  for (size_t k = 0; k < n / 2; ++k) {
    const double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    twiddles[k] = {std::cos(angle), std::sin(angle)};
  }
  return twiddles;
}

// Iterative Cooley-Tukey on `twiddles` = Twiddles(data.size()), conjugated
// for the inverse.
void Transform(std::span<Complex> data, const std::vector<Complex>& twiddles, bool inverse) {
  const size_t n = data.size();
  if (n < 2) return;
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  for (size_t length = 2; length <= n; length <<= 1) {
    const size_t half = length / 2;
    const size_t stride = n / length;
    for (size_t start = 0; start < n; start += length) {
      for (size_t k = 0; k < half; ++k) {
        const Complex twiddle = inverse ? std::conj(twiddles[k * stride]) : twiddles[k * stride];
        const Complex odd = Multiply(twiddle, data[start + k + half]);
        data[start + k + half] = data[start + k] - odd;
        data[start + k] += odd;
      }
    }
  }
}

}  // namespace

void FourierTransform(std::span<Complex> data, bool inverse) {
  Transform(data, Twiddles(data.size()), inverse);
}

std::vector<double> CrossCorrelation(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) return {};
  const size_t size = a.size() + b.size() - 1;
  // Zero padding to at least `size` keeps the circular correlation from
  // wrapping one end of the lags onto the other.
  const size_t n = std::bit_ceil(size);
  // Both real sequences in one complex transform: a in the real part, b in
  // the imaginary part, separated again by conjugate symmetry.
  std::vector<Complex> packed(n);
  for (size_t i = 0; i < a.size(); ++i) packed[i].real(a[i]);
  for (size_t i = 0; i < b.size(); ++i) packed[i].imag(b[i]);
  const std::vector<Complex> twiddles = Twiddles(n);
  Transform(packed, twiddles, /*inverse=*/false);
  std::vector<Complex> spectrum(n);
  for (size_t k = 0; k < n; ++k) {
    const Complex z = packed[k];
    const Complex mirror = std::conj(packed[(n - k) % n]);
    const Complex a_k = 0.5 * (z + mirror);
    const Complex b_k = Multiply(Complex(0.0, -0.5), z - mirror);
    spectrum[k] = Multiply(a_k, std::conj(b_k));
  }
  Transform(spectrum, twiddles, /*inverse=*/true);
  std::vector<double> correlation(size);
  const double scale = 1.0 / static_cast<double>(n);
  const size_t negative = b.size() - 1;
  for (size_t index = 0; index < size; ++index) {
    // Lag k = index - negative lives at k mod n in the circular result.
    const size_t lag_mod_n = (index + n - negative) % n;
    correlation[index] = spectrum[lag_mod_n].real() * scale;
  }
  return correlation;
}

}  // namespace wasserwarp

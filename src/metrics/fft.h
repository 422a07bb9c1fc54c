// A radix-2 fast Fourier transform, and the cross-correlation of two real
// sequences on it: the lag search of the pair metrics needs every lag's
// correlation, which summed lag by lag costs O(N^2) on runs of 10^5 samples.

#ifndef WASSERWARP_SRC_METRICS_FFT_H_
#define WASSERWARP_SRC_METRICS_FFT_H_

#include <complex>
#include <span>
#include <vector>

namespace wasserwarp {

// X_k = sum_n x_n exp(-2 pi i k n / N) in place; with `inverse` the sign of
// the exponent flips and there is no 1/N factor. data.size() must be a power
// of two (1 included).
void FourierTransform(std::span<std::complex<double>> data, bool inverse);

// c[k + b.size() - 1] = sum_i a[i] b[i - k] over the indices where both
// exist, for every k in [-(b.size() - 1), a.size() - 1]: largest where `a`
// repeats `b` k samples later. Empty when either input is.
std::vector<double> CrossCorrelation(std::span<const double> a, std::span<const double> b);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_METRICS_FFT_H_

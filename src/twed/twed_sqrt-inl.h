// A correctly rounded square root of every lane that runs on the FMA ports,
// for the TWED lanes' L2 cost. The divider's vsqrtpd yields about one double
// per ns on the Xeons we target, which bounds a three-channel cell at 1.07 ns
// while the rest of the cell needs 0.45; taking a quarter of the square
// roots on the FMA ports instead gives 0.79. The result is the same bits as
// std::sqrt, so the kernels stay bit-identical to the scalar one. Where the
// divider is faster (AMD's Zen 5), the kernels leave it the square roots:
// twed_batch.cc times both once per process (FmaSqrtPays).
//
// Per-target code: included by twed_batch.cc inside its Highway target
// loop, hence the toggling include guard.

#if defined(WASSERWARP_SRC_TWED_TWED_SQRT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef WASSERWARP_SRC_TWED_TWED_SQRT_INL_H_
#undef WASSERWARP_SRC_TWED_TWED_SQRT_INL_H_
#else
#define WASSERWARP_SRC_TWED_TWED_SQRT_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace wasserwarp::twed_internal::HWY_NAMESPACE {

#if HWY_TARGET <= HWY_AVX3
// sqrt(x) of every lane, bit for bit, for x in [2^-904, 2^805] or 0.
//
// A candidate y from rsqrt14 (14 bits) and two Goldschmidt steps with a final
// Newton correction is almost always the rounded root; it is verified exactly
// and vsqrtpd recomputes the vector when any lane fails (x = 0 does: its
// candidate is NaN).
//
// The check: y = RN(sqrt(x)) if |x - y^2| < y u, u = y - pred(y) the spacing
// below y. With d = sqrt(x) - y, x - y^2 = d (2y + d). If d >= u'/2 (u' >= u
// the spacing above y), x - y^2 >= y u' + u'^2/4 > y u. If d <= -u/2,
// x - y^2 <= -y u + u^2/4, and as x - y^2 and y u are integer multiples of
// u^2 (when x >= y^2/4; a smaller x fails the check anyway), x - y^2 <= -y u.
// Both are ruled out. In this range y u is a normal double, so exact, and the
// FMA rounds x - y^2 monotonically, so the rounded residual gives the same
// verdict.
template <class D>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D> FmaSqrt(D d, hwy::HWY_NAMESPACE::Vec<D> x) {
  namespace hn = hwy::HWY_NAMESPACE;
  using V = hn::Vec<D>;
  const V half = hn::Set(d, 0.5);
  const V r0{_mm512_rsqrt14_pd(x.raw)};
  V y = hn::Mul(x, r0);     // ~ sqrt(x)
  V h = hn::Mul(half, r0);  // ~ 1 / (2 sqrt(x))
  V e = hn::NegMulAdd(y, h, half);
  y = hn::MulAdd(y, e, y);
  h = hn::MulAdd(h, e, h);  // 28 bits suffice for the correction below
  e = hn::NegMulAdd(y, h, half);
  y = hn::MulAdd(y, e, y);
  y = hn::MulAdd(hn::NegMulAdd(y, y, x), h, y);

  const hn::RebindToUnsigned<D> du;
  const V below = hn::BitCast(d, hn::Sub(hn::BitCast(du, y), hn::Set(du, 1)));
  const V bound = hn::Mul(y, hn::Sub(y, below));
  const V residual = hn::NegMulAdd(y, y, x);
  if (HWY_UNLIKELY(!hn::AllTrue(d, hn::Lt(hn::Abs(residual), bound)))) return hn::Sqrt(x);
  return y;
}
#endif  // HWY_TARGET <= HWY_AVX3

}  // namespace wasserwarp::twed_internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // WASSERWARP_SRC_TWED_TWED_SQRT_INL_H_

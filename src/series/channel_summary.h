// What `inspect` shows of a channel whose values are known one by one: the samples counted,
// the times of the first and last finite value, and the minimum, maximum and mean of the
// finite values (non-finite ones are counted and left out). For the readers whose files hold
// plain arrays (MATLAB, CSV); MDF 4 summarises its records where it decodes them.

#ifndef WASSERWARP_SRC_SERIES_CHANNEL_SUMMARY_H_
#define WASSERWARP_SRC_SERIES_CHANNEL_SUMMARY_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "wasserwarp/mdf4.h"

namespace wasserwarp {

// Of the channel's first `count` samples (at most times.size()): `value(i)` is its value at
// times[i]. Conversion "identity".
Mdf4ChannelSummary SummarizeChannel(std::string name, std::string data_type,
                                    const std::vector<double>& times, size_t count,
                                    const std::function<double(size_t)>& value);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_SERIES_CHANNEL_SUMMARY_H_

"""Expected values for tests/mdf4_files_test.cc, from an implementation independent of the reader.

Reads an MDF 4 file with only struct and zlib and prints, for every channel of every group, the
number of samples, the first and last time, and the minimum, maximum and mean of the physical values
(%.17g). It knows only what the files in ../shared/data/mdf4 use: sorted groups, byte-aligned
little-endian values, DT or DZ data, conversions identity, linear, rational and value-to-value
tables; channels with other conversions are printed as unreadable.

    python3 tests/mdf4_reference.py FILE.mf4...
"""
import bisect
import struct
import sys
import zlib


def block(data, offset):
    _, _, length, link_count = struct.unpack_from('<4s4sQQ', data, offset)
    links = struct.unpack_from('<%dQ' % link_count, data, offset + 24)
    return data[offset:offset + 4], links, data[offset + 24 + 8 * link_count:offset + length]


def text(data, offset):
    return block(data, offset)[2].split(b'\0')[0].decode() if offset else ''


def records(data, offset):
    kind, _, body = block(data, offset)
    if kind == b'##DT':
        return body
    _, zip_type, _, columns, original, _ = struct.unpack_from('<2sBBIQQ', body)
    raw = zlib.decompress(body[24:])
    if zip_type == 0:
        return raw
    rows = original // columns
    out = bytearray(original)
    for r in range(rows):
        for c in range(columns):
            out[r * columns + c] = raw[c * rows + r]
    out[rows * columns:] = raw[rows * columns:]
    return bytes(out)


def conversion(data, offset):
    if not offset:
        return lambda x: x
    _, _, body = block(data, offset)
    kind, _, _, _, count = struct.unpack_from('<BBHHH', body)
    p = struct.unpack_from('<%dd' % count, body, 24)
    if kind == 0:
        return lambda x: x
    if kind == 1:
        return lambda x: p[0] + p[1] * x
    if kind == 2:
        return lambda x: ((p[0] * x * x + p[1] * x + p[2]) / d if (d := p[3] * x * x + p[4] * x + p[5])
                          else float('nan'))
    keys, values = p[0::2], p[1::2]
    if kind == 4:
        def interpolated(x):
            if x <= keys[0]:
                return values[0]
            if x >= keys[-1]:
                return values[-1]
            i = bisect.bisect_right(keys, x)
            return values[i - 1] + (values[i] - values[i - 1]) * (x - keys[i - 1]) / (keys[i] - keys[i - 1])
        return interpolated
    if kind == 5:
        def nearest(x):
            i = min(range(len(keys)), key=lambda k: (abs(x - keys[k]), k))
            return values[i]
        return nearest
    return None


FORMATS = {(0, 8): '<B', (0, 16): '<H', (0, 32): '<I', (2, 8): '<b', (2, 16): '<h', (2, 32): '<i',
           (4, 32): '<f', (4, 64): '<d'}


def main(path):
    data = open(path, 'rb').read()
    group = block(data, 64)[1][0]
    while group:
        _, group_links, _ = block(data, group)
        raw = records(data, group_links[2])
        _, cg_links, cg_body = block(data, group_links[1])
        _, cycles, _, _, _, size, invalid = struct.unpack_from('<QQHH4sII', cg_body)
        size += invalid
        channels = []
        channel = cg_links[1]
        while channel:
            links, body = block(data, channel)[1:]
            kind, _, data_type, _, byte, bits = struct.unpack_from('<BBBBII', body)
            convert = conversion(data, links[4])
            values = None
            if convert is not None:
                fmt = FORMATS[(data_type, bits)]
                values = [convert(struct.unpack_from(fmt, raw, r * size + byte)[0]) for r in range(cycles)]
            channels.append((text(data, links[2]), kind, values))
            channel = links[0]
        times = next(v for _, kind, v in channels if kind == 2)
        print('group', text(data, cg_links[2]) or '-', cycles)
        for name, _, values in channels:
            if values is None:
                print('  %s unreadable' % name)
                continue
            kept = [(t, v) for t, v in zip(times, values) if v == v and abs(v) != float('inf')]
            vs = [v for _, v in kept]
            print('  %s %d %.17g %.17g %.17g %.17g %.17g' % (name, len(kept), kept[0][0], kept[-1][0],
                  min(vs), max(vs), sum(vs) / len(vs)))
        group = group_links[0]


for argument in sys.argv[1:]:
    print('file', argument)
    main(argument)

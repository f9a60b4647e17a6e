#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a C file defining `const char NAME[]` with the bytes of a text file."""
import sys

src, out, name = sys.argv[1:4]
data = open(src, 'rb').read()
with open(out, 'w') as f:
    f.write('/* Generated from %s by config/embed.py. */\n' % src.split('/')[-1])
    f.write('const char %s[] = {\n' % name)
    for i in range(0, len(data), 12):
        f.write('\t' + ' '.join('0x%02x,' % b for b in data[i:i + 12]) + '\n')
    f.write('\t0x00,\n};\n')

#!/usr/bin/env python3
"""Where a bundle's time goes, layer by layer.

Runs speed_bench on one model under `perf record` (kernels are separate
functions, kiln.N.OP.VARIANT, so samples fall per LIR instruction), takes the
model's median latency and the FMA peak from a plain speed_bench run, and the
FLOPs of every convolution and matrix product from kilnc's printed graph and
LIR. Prints one row per kernel: share of the time, microseconds, GFLOP/s and
share of the peak. Layers that share a kernel function (identical code is
merged) split its samples evenly.

With --ort, also runs ONNX Runtime's profiler on the same model and input
(ort_layers.js, one intra-op thread) and prints both sides' time per output
plane size (224x224, 112x112, ..., 1x1, and "other" for outputs that are not
planes). Planes, not layers: the two fuse and pad differently (ORT's NCHWc
rounds channels up to 8 or 16, kiln fuses a 1x1 with the depthwise after it),
but a layer's plane size is the same on both.

    bazel build //benchmarks/speed:speed_bench //compiler/kilnc
    benchmarks/speed/layer_profile.py resnet18 [--seconds 3] [--ort]

Needs `perf` (linux-perf) and the bazel-bin outputs of this workspace; --ort
needs node and onnxruntime-node in $ORT_DIR (see ../shared/bench/README.md).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def model_path(name):
    """The model's file: shipped here, else in the shared or the suite's folder (as speed_bench finds it)."""
    folders = [os.path.join(ROOT, 'bundles', 'models'),
               os.environ.get('KILN_SHARED_MODELS', os.path.join(ROOT, '..', 'shared', 'models')),
               os.environ.get('KILN_SUITE_MODELS', os.path.join(ROOT, '..', 'shared', 'suite'))]
    paths = [os.path.join(folder, name + '.onnx') for folder in folders]
    return next((p for p in paths if os.path.exists(p)), paths[1])


def shapes_from_graph(text):
    """Value name -> shape, from kilnc --print-graph."""
    shapes = {}
    for line in text.splitlines():
        m = re.match(r'\s*(?:input|const)?\s*%(\S+)\s*(?::|=.*:)\s*\w+\[([\d,]*)\]\s*$', line)
        if m:
            shapes[m.group(1)] = [int(d) for d in m.group(2).split(',') if d]
            continue
        # A node of several outputs: %a, %b = Op(...) : f32[..], f32[..]
        m = re.match(r'\s*(%[^=]+?)\s*=\s.*\)(?:\s*\{.*\})?\s*:\s*((?:\w+\[[\d,]*\](?:,\s*)?)+)$', line)
        if m:
            names = [n.strip().lstrip('%') for n in m.group(1).split(',')]
            types = re.findall(r'\w+\[([\d,]*)\]', m.group(2))
            for name, dims in zip(names, types):
                shapes[name] = [int(d) for d in dims.split(',') if d]
    return shapes


def node_inputs(text):
    """Output value name -> (op, input names), from kilnc --print-graph."""
    nodes = {}
    for line in text.splitlines():
        m = re.match(r'\s*%(\S+) = (\w+)\(([^)]*)\)', line)
        if m:
            nodes[m.group(1)] = (m.group(2), [a.strip().lstrip('%') for a in m.group(3).split(',') if a.strip()])
    return nodes


def flops(op, inputs, out, shapes):
    if op == 'Conv':
        w = shapes[inputs[1]]
        return 2 * out[0] * out[1] * out[2] * out[3] * w[1] * w[2] * w[3]
    if op == 'MatMul':
        a, b = shapes[inputs[0]], shapes[inputs[1]]
        batch = 1
        for d in out[:-2]:
            batch *= d
        m = a[-2] if len(a) > 1 else 1
        return 2 * batch * m * a[-1] * (b[-1] if len(b) > 1 else 1)
    return 0


def plane(shape):
    return 'x'.join(map(str, shape[2:])) if len(shape) == 4 else 'other'


def ort_planes(onnx, input_shape, kiln_rows):
    """Prints kiln's and ONNX Runtime's time per output plane size."""
    script = os.path.join(ROOT, 'benchmarks', 'speed', 'ort_layers.js')
    data = os.path.splitext(onnx)[0] + '.input.bin'
    nodes = json.loads(subprocess.run(['node', script, onnx, data, json.dumps(input_shape)],
                                      check=True, capture_output=True, text=True).stdout)
    kiln, ort = {}, {}
    for shape, us in kiln_rows:
        kiln[plane(shape)] = kiln.get(plane(shape), 0) + us
    for n in nodes:
        ort[plane(n['output'])] = ort.get(plane(n['output']), 0) + n['us']
    kt, ot = sum(kiln.values()), sum(ort.values())
    print()
    print('ONNX Runtime (1 thread, profiled: its nodes sum to %.0f us) against kiln (%.0f us), '
          'per output plane:' % (ot, kt))
    print('| plane | kiln us | kiln % | ORT us | ORT % | ORT / kiln |')
    print('|---|---:|---:|---:|---:|---:|')
    def area(k):
        return -1 if k == 'other' else math.prod(map(int, k.split('x')))
    for k in sorted(set(kiln) | set(ort), key=area, reverse=True):
        kus, ous = kiln.get(k, 0), ort.get(k, 0)
        print('| %s | %.1f | %.1f | %.1f | %.1f | %s |' % (
            k, kus, 100 * kus / kt, ous, 100 * ous / ot, '%.2f' % (ous / kus) if kus else '-'))


def shared_samples(instrs, syms, samples):
    """Samples and a kernel label per instruction. Instructions of the same op, kernel and
    buffer sizes compile to one function (kiln merges identical kernels), so
    only one of them has a symbol: such a group's samples are split evenly
    among its instructions."""
    def signature(line):
        return re.sub(r'%[^@\s,()]+@\w+\+\d+', '', line.split(' = ', 1)[1])
    groups = {}
    for i, line in enumerate(instrs):
        groups.setdefault(signature(line), []).append(i)
    shares = [samples.get(sym, 0.0) if sym else 0.0 for sym in syms]
    labels = list(syms)
    for members in groups.values():
        if any(syms[i] is None for i in members):
            pooled = sum(shares[i] for i in members) / len(members)
            owner = next((syms[i] for i in members if syms[i]), '?')
            for i in members:
                shares[i] = pooled
                labels[i] = syms[i] or 'kiln.%d (code of %s)' % (i, owner)
    return shares, labels


def fused_flops(line, outname, shapes, nodes):
    """FLOPs of an instruction's Convs and MatMuls: the ops of `line` (e.g.
    Conv+Conv+Conv+Add, an inverted residual block in bands), walked back
    from its output. A fused Add's operand that the instruction does not read
    as an input is the result of the op before it."""
    ops = re.match(r'[^=]*= ([\w+]+)', line).group(1).split('+')
    reads = set(re.findall(r'%([^@,()]+)@', line.split(' = ', 1)[1]))
    total, cur = 0, outname
    for op in reversed(ops):
        if cur not in nodes:
            break
        kind, ins = nodes[cur]
        if kind in ('Conv', 'MatMul'):
            total += flops(kind, ins, shapes.get(cur, []), shapes)
        if not ins:
            break
        cur = next((v for v in ins if v not in reads), ins[0])
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('--seconds', type=float, default=3)
    ap.add_argument('--bin', default=os.path.join(ROOT, 'bazel-bin'))
    ap.add_argument('--ort', action='store_true',
                    help="also ONNX Runtime's time per output plane size")
    args = ap.parse_args()
    name = args.model
    onnx = model_path(name)
    kilnc = os.path.join(args.bin, 'compiler', 'kilnc', 'kilnc')
    bench = os.path.join(args.bin, 'benchmarks', 'speed', 'speed_bench')
    weights = os.path.join(args.bin, 'benchmarks', 'speed', name + '_kiln', name + '.weights.bin')

    with tempfile.TemporaryDirectory() as tmp:
        graph, lir = os.path.join(tmp, 'g.txt'), os.path.join(tmp, 'l.lir')
        subprocess.run([kilnc, onnx, '-o', tmp, '--name', name, '--print-graph', graph,
                        '--print-lir', lir], check=True, stdout=subprocess.DEVNULL)
        gtext, ltext = open(graph).read(), open(lir).read()
        base = [bench, '--model=%s:%s:%s' % (name, onnx, weights), '--models=' + name,
                '--compile_reps=0', '--benchmark_color=false']
        out = os.path.join(tmp, 'k.json')
        subprocess.run(base + ['--json=' + out], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        summary = json.load(open(out))
        data = os.path.join(tmp, 'perf.data')
        subprocess.run(['perf', 'record', '-q', '-F', '2000', '-o', data] + base +
                       ['--reps=1', '--min_time=%g' % args.seconds, '--benchmark_filter=' + name],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        report = subprocess.run(['perf', 'report', '-i', data, '--sort', 'sym', '--stdio'],
                                check=True, capture_output=True, text=True).stdout
        for path in (out, data):
            os.remove(path)

    samples = {}
    for line in report.splitlines():
        m = re.match(r'\s*([\d.]+)%\s+\[\.\]\s+(kiln\.(\d+)\.\S+|' + name + r'_run)', line)
        if m:
            samples[m.group(2)] = float(m.group(1))
    total = sum(samples.values())
    shapes, nodes = shapes_from_graph(gtext), node_inputs(gtext)
    instrs = [l for l in ltext.splitlines()[1:] if ' = ' in l]
    median_ms = summary['models'][name]['median_ms']
    peak = summary['peak_gflops']
    print('%s: median %.4f ms, FMA peak %.1f GFLOP/s, %d kernels' % (name, median_ms, peak, len(instrs)))
    print('| # | kernel | output | MFLOP | % time | us | GFLOP/s | % of peak |')
    print('|---:|---|---|---:|---:|---:|---:|---:|')
    syms = [next((s for s in samples if s.startswith('kiln.%d.' % i)), None)
            for i in range(len(instrs))]
    shares, labels = shared_samples(instrs, syms, samples)
    rows = []
    for i, line in enumerate(instrs):
        outname = re.match(r'\s*%([^@]+)@', line).group(1)
        sym = labels[i] or 'kiln.%d.?' % i
        share = shares[i] / total if total else 0
        us = share * median_ms * 1e3
        f = fused_flops(line, outname, shapes, nodes)
        rate = f / (us * 1e3) if us > 0 else 0
        rows.append((i, sym, 'x'.join(map(str, shapes.get(outname, []))), f / 1e6, 100 * share,
                     us, rate, 100 * rate / peak if peak else 0))
    for r in rows:
        print('| %d | %s | %s | %.2f | %.1f | %.1f | %.1f | %.1f |' % r)
    if args.ort:
        graph_input = re.search(r'^\s*input\s+%(\S+?)\s*:', gtext, re.M).group(1)
        ort_planes(onnx, shapes[graph_input],
                   [([int(d) for d in r[2].split('x') if d], r[5]) for r in rows])


if __name__ == '__main__':
    sys.exit(main())

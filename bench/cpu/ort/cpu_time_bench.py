#!/usr/bin/env python3
"""Per-call CPU time of Wick's native CPU path against onnxruntime-node's CPU EP, one thread
each: the comparison that still holds on a machine busy with other work, where wall-clock
medians (native_bench.mjs) swing with the scheduler.

For each model of models.mjs and each engine, the tool is run twice, once with 1 timed call
and once with 1 + N, and the difference of the two processes' user + system CPU time
(getrusage of the children), divided by N, is one call's compute: start-up, loading and
warm-up cancel out. Rounds alternate which engine goes first; the median of the rounds is
reported, with Wick / onnxruntime (below 1: Wick is faster). The load average is printed.

  python3 bench/cpu/ort/cpu_time_bench.py [WICK=build/wick] [--onnx-dir .bench/onnx] [--rounds 3]
      [--wick-before OTHER_WICK]   (a second Wick binary measured in the same rounds)
      [--only NAME,...]            (models of models.mjs to run; default all)
      [--threads N]                (WICK_NUM_THREADS and onnxruntime's intra-op threads; default 1)
"""
import argparse
import os
import re
import resource
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '../../..'))
FIXTURES = os.environ.get('WICK_FIXTURES_DIR', os.path.abspath(os.path.join(REPO, '../shared/fixtures')))
# Timed calls per measurement (the difference of two runs): enough for tens of ms of work.
CALLS = {'mobilenet_v3_small': 100, 'esrgan_slim_x4_64': 10, 'llama_tiny_decode_q4': 400, 'llama_tiny_decode_fp32': 1000}


def models():
    text = open(os.path.join(HERE, 'models.mjs')).read()
    return [dict(name=m[0], pte=m[1], onnx=m[2], warmup=int(m[3]))
            for m in re.findall(r"name: '([^']+)', pte: '([^']+)', onnx: '([^']+)', warmup: (\d+)", text)]


def child_cpu(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def per_call_ms(make_cmd, env, n):
    return (child_cpu(make_cmd(1 + n), env) - child_cpu(make_cmd(1), env)) / n * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('wick', nargs='?', default=os.path.join(REPO, 'build/wick'))
    ap.add_argument('--onnx-dir', default=os.path.join(REPO, '.bench/onnx'))
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--wick-before', default=None)
    ap.add_argument('--only', default=None)
    ap.add_argument('--threads', type=int, default=1)
    a = ap.parse_args()
    env = dict(os.environ, WICK_NUM_THREADS=str(a.threads))
    chosen = [m for m in models() if not a.only or m['name'] in a.only.split(',')]
    unknown = set(a.only.split(',')) - {m['name'] for m in models()} if a.only else set()
    if unknown:
        sys.exit(f"--only: no model {', '.join(sorted(unknown))} (models.mjs has {', '.join(m['name'] for m in models())})")
    engines = [('wick', a.wick)] + ([('wick_before', a.wick_before)] if a.wick_before else []) + [('ort', None)]
    results = {}
    for r in range(a.rounds):
        for m in chosen:
            n = CALLS.get(m['name'], 20)
            order = engines if r % 2 == 0 else list(reversed(engines))
            for name, binary in order:
                if binary:
                    cmd = lambda runs, b=binary: [b, 'bench', os.path.join(FIXTURES, m['pte'], 'model.pte'), '--backend', 'cpu',
                                                  '--runs', str(runs), '--warmup', str(m['warmup'])]
                else:
                    cmd = lambda runs: ['node', os.path.join(HERE, 'ort_node_bench.mjs'), os.path.join(a.onnx_dir, m['onnx']),
                                        '--threads', str(a.threads), '--runs', str(runs), '--warmup', str(m['warmup'])]
                results.setdefault((m['name'], name), []).append(per_call_ms(cmd, env, n))
    print(f"# per-call CPU time (user + sys), {a.threads} thread(s), median of {a.rounds} rounds; {os.cpu_count()} cores; "
          f"load average after {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for m in chosen:
        ort = statistics.median(results[(m['name'], 'ort')])
        line = f"{m['name']:24s} ort {ort:8.3f} ms"
        for name, _ in engines[:-1]:
            w = statistics.median(results[(m['name'], name)])
            line += f"  {name} {w:8.3f} ms ({w / ort:.2f}x)"
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())

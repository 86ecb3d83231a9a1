#!/usr/bin/env node
// Reads the rounds compare_ort.sh wrote (kiln_N.json from speed_bench,
// ort_N.json from ort_bench.js) and prints, per model, the median over rounds
// of each side's median latency and the ratio ORT / kiln (> 1: kiln faster),
// with the per-round ratios to show the spread.
'use strict';
const fs = require('fs');
const path = require('path');
const median = require('./median.js');

const dir = process.argv[2];
const files = fs.readdirSync(dir);
const rounds = (prefix) => files.filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
  .sort().map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
const kiln = rounds('kiln_');
// ort_R_FOLDER.json: a round's results over several model folders, merged
// (a model in two folders, such as lenet5, keeps the first folder's by name).
const ortFiles = files.filter((f) => /^ort_\d+_.*\.json$/.test(f)).sort();
const roundOf = (f) => Number(f.split('_')[1]);
const ort = [...new Set(ortFiles.map(roundOf))].sort((a, b) => a - b).map((r) => ({
  results: ortFiles.filter((f) => roundOf(f) === r)
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).results).flat(),
}));

const peak = median(kiln.map((k) => k.peak_gflops));
console.log(`${kiln.length} rounds; FMA peak of one core (median): ${peak.toFixed(1)} GFLOP/s\n`);
console.log('| model | GFLOP | kiln ms | ORT 1t ms | ORT / kiln | per round | kiln GFLOP/s | % of peak | compile s | weights B | scratch B |');
console.log('|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|');
for (const name of Object.keys(kiln[0].models)) {
  const k = kiln.map((r) => r.models[name]).filter(Boolean);
  const o = ort.map((r) => r.results.find((x) => x.model === name && x.threads === 1)).filter(Boolean);
  const km = median(k.map((x) => x.median_ms));
  const om = median(o.map((x) => x.median));
  const perRound = k.map((x, i) => (o[i] ? (o[i].median / x.median_ms).toFixed(2) : '-')).join(' ');
  const gflops = k[0].gflop / (km / 1e3);
  const compile = k.map((x) => x.compile_s).find((c) => c > 0) || NaN;
  console.log(`| ${name} | ${k[0].gflop.toFixed(4)} | ${km.toFixed(4)} | ${om.toFixed(4)} | ` +
              `${(om / km).toFixed(2)} | ${perRound} | ${gflops.toFixed(1)} | ` +
              `${(100 * gflops / peak).toFixed(1)} | ${compile.toFixed(2)} | ${k[0].weights_bytes} | ` +
              `${k[0].scratch_bytes} |`);
}

// The MCP recall round trip: SDK client -> `vasana mcp` (stdio) -> the node (IPC socket) -> back,
// at N memories in one realm (default 100,000, imported with `vasana import`).
//   node mcp_bench.mjs VASANA_BINARY [--memories N] [--calls N] [--warmup N] [--settle S]
// Prints p50/p90/p99 of the callTool('recall') latency in ms, and the same figures for a `ping`
// request through the same pipes (the JSON-RPC and stdio cost without the node's recall).
// Corpus: words drawn Zipf-like from 20,000 made-up words, 8 to 40 words a memory (as
// bench/synthetic_corpus.hpp), seeded, so runs compare.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startNode } from './node_fixture.mjs';

const argv = process.argv.slice(2);
const binary = argv[0] || process.env.VASANA_BINARY;
const opt = (name, d) => { const i = argv.indexOf(`--${name}`); return i > 0 ? Number(argv[i + 1]) : d; };
const memories = opt('memories', 100000), calls = opt('calls', 2000), warmup = opt('warmup', 200), settle = opt('settle', 30);
if (!binary) { console.error('usage: node mcp_bench.mjs VASANA_BINARY [--memories N] [--calls N] [--warmup N]'); process.exit(2); }

let seed = 42;
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const syll = ['ka', 'lo', 'mi', 'ne', 'su', 'ta', 'ri', 'vo', 'de', 'za', 'pe', 'gu'];
const vocab = [];
for (let i = 0; i < 20000; ++i) {
  let w = '', x = i + 7;
  for (let s = 0; s < 2 + (i % 3); ++s, x = Math.floor(x / 12)) w += syll[x % 12];
  vocab.push(w);
}
const cum = []; let total = 0;
for (let i = 0; i < vocab.length; ++i) { total += 1 / (i + 1); cum.push(total); }
const word = () => { const r = rand() * total; let lo = 0, hi = cum.length - 1; while (lo < hi) { const m = (lo + hi) >> 1; if (cum[m] < r) lo = m + 1; else hi = m; } return vocab[lo]; };
const words = (n) => Array.from({ length: n }, word).join(' ');

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const fmt = (xs) => `p50 ${pct(xs, 0.5).toFixed(2)} ms, p90 ${pct(xs, 0.9).toFixed(2)} ms, p99 ${pct(xs, 0.99).toFixed(2)} ms`;

const node = await startNode(binary);
try {
  const file = join(node.root, 'corpus.jsonl');
  const lines = [];
  for (let i = 0; i < memories; ++i) lines.push(JSON.stringify({ text: words(8 + Math.floor(rand() * 33)), ref: `b${i}` }));
  writeFileSync(file, lines.join('\n') + '\n');
  let t0 = performance.now();
  const imp = spawnSync(binary, ['import', '--realm', 'bench', '--data', node.data, file], { encoding: 'utf8', timeout: 600000 });
  if (imp.status !== 0) throw new Error(`import failed: ${imp.stderr}`);
  console.log(`imported ${memories} memories in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // --settle S (default 30): wait before measuring, so the work the node does after a bulk import
  // (measured: p50 7.7 ms instead of 2.3 ms right after it) is not counted.
  if (settle > 0) await new Promise((r) => setTimeout(r, settle * 1000));

  const client = new Client({ name: 'vasana-bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: binary, args: ['mcp', '--data', node.data], stderr: 'pipe' }));
  const recall = async () => {
    const r = await client.callTool({ name: 'recall', arguments: { query: words(3), realms: ['bench'], limit: 10 } });
    if (r.isError) throw new Error(r.content[0].text);
    return r;
  };
  for (let i = 0; i < warmup; ++i) await recall();
  const lat = [];
  let hits = 0;
  for (let i = 0; i < calls; ++i) {
    t0 = performance.now();
    const r = await recall();
    lat.push(performance.now() - t0);
    hits += r.structuredContent.hits.length;
  }
  const pings = [];
  for (let i = 0; i < 500; ++i) { t0 = performance.now(); await client.ping(); pings.push(performance.now() - t0); }
  console.log(`MCP recall round trip at ${memories} memories (${calls} calls, ${(hits / calls).toFixed(1)} hits each): ${fmt(lat)}`);
  console.log(`MCP ping round trip (no node call): ${fmt(pings)}`);
  await client.close();
} finally {
  await node.stop();
}

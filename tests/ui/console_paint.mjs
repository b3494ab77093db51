// First paint of the web console's search page against a node holding many memories: a node with
// [http] and one client, MEMORIES synthetic memories loaded with `vasana import` (one of them the
// memory the query looks for), then the search page reloaded RUNS times in headless Chromium.
// Prints each load and the medians: first paint, first contentful paint, the /v1/recall call as
// the page timed it, and when the results were on screen (from navigation start).
//
//   sh tests/ui/run.sh console_paint.mjs VASANA_BINARY [MEMORIES] [RUNS]     (100000, 9)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { startNode } from '../mcp/node_fixture.mjs';

const [binary, memoriesArg = '100000', runsArg = '9'] = process.argv.slice(2);
if (!binary) {
  console.log('usage: console_paint.mjs VASANA_BINARY [MEMORIES] [RUNS]');
  process.exit(2);
}
const memories = Number(memoriesArg);
const runs = Number(runsArg);
const TOKEN = 'paint-token-0123456789abcdefghijklmnopqrstuvwxyz';
const TARGET = 'backups of the billing service run nightly at 02:00 UTC';
const tmp = mkdtempSync(join(tmpdir(), 'vasana-paint-'));

// Seeded words, so every run loads the same store.
function corpus(path) {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const words = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
  const lines = [JSON.stringify({ text: TARGET, ref: 'target' })];
  for (let i = 1; i < memories; i += 1) {
    const n = 8 + (next() % 12);
    const text = Array.from({ length: n }, () => words[next() % words.length]).join(' ');
    lines.push(JSON.stringify({ text, ref: `m${i}` }));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

async function httpUrl(node) {
  for (let i = 0; i < 100; i += 1) {
    const m = /http on (http:\/\/127\.0\.0\.1:\d+)/.exec(node.stderr());
    if (m) return m[1];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no "http on" line in the node's log: ${node.stderr()}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

let node = null;
let browser = null;
try {
  writeFileSync(join(tmp, 'paint.token'), `${TOKEN}\n`, { mode: 0o600 });
  node = await startNode(binary, {
    config: `[http]\nlisten = "127.0.0.1:0"\n\n[clients."paint"]\nread = ["*"]\ntoken_file = "${join(tmp, 'paint.token')}"\n`,
  });
  const url = await httpUrl(node);
  const jsonl = join(tmp, 'memories.jsonl');
  corpus(jsonl);
  const t0 = Date.now();
  const imp = spawnSync(binary, ['import', '--data', node.data, '--realm', 'team', jsonl], { encoding: 'utf8' });
  if (imp.status !== 0) throw new Error(`vasana import failed: ${imp.stderr}`);
  console.log(`${memories} memories imported in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${url}/ui/`, { waitUntil: 'load' });
  await page.evaluate((t) => sessionStorage.setItem('vasana.console.token', t), TOKEN);
  await page.goto(`${url}/ui/#/search?realms=team&q=billing+backups+nightly`);
  const rows = [];
  for (let i = 0; i < runs; i += 1) {
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('#search-result .hit', { timeout: 30000 });
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
    rows.push(await page.evaluate(() => ({
      fp: performance.getEntriesByName('first-paint')[0].startTime,
      fcp: performance.getEntriesByName('first-contentful-paint')[0].startTime,
      recall: performance.getEntriesByType('resource').find((r) => r.name.endsWith('/v1/recall')).duration,
      shown: performance.now(),
      top: document.querySelector('#search-result .hit .text').textContent,
    })));
  }
  for (const r of rows)
    console.log(`first paint ${r.fp.toFixed(0)} ms, FCP ${r.fcp.toFixed(0)} ms, /v1/recall ${r.recall.toFixed(0)} ms, results ${r.shown.toFixed(0)} ms; top hit: ${r.top}`);
  const pick = (k) => median(rows.map((r) => r[k])).toFixed(0);
  console.log(`median of ${runs} loads with ${memories} memories: first paint ${pick('fp')} ms, FCP ${pick('fcp')} ms, ` +
    `/v1/recall ${pick('recall')} ms, results on screen ${pick('shown')} ms; console errors: ${errors.length}`);
  if (rows.some((r) => r.top !== TARGET)) throw new Error('the search did not find the target memory first');
  if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
} catch (e) {
  console.error(`console_paint: ${e.message}`);
  process.exitCode = 1;
} finally {
  if (browser) await browser.close();
  if (node) await node.stop();
  rmSync(tmp, { recursive: true, force: true });
}

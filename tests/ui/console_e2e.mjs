// The web console (frontends/ui) end to end in headless Chromium, loaded from the node itself
// (http://NODE/ui/): a node with [http] and two clients, memories stored through the API, then
// every page driven as a person would and checked, with a screenshot of each in ARTIFACT_DIR.
// Any console error or page error fails the test, except the 4xx a step expects the API to
// answer (Chromium logs every refused request), and so does any request leaving the node's origin.
//
//   sh tests/ui/run.sh console_e2e.mjs VASANA_BINARY ARTIFACT_DIR
//
// Clients: "reviewer" reads every realm (GET /v1/status needs read = ["*"]), writes and reviews
// "team" and writes "secret"; "outsider" reads "team" only, so "secret" is refused to it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { startNode } from '../mcp/node_fixture.mjs';

const WATCHDOG_MS = 120000;
const PAINT_BUDGET_MS = Number(process.env.VASANA_UI_PAINT_BUDGET_MS || 1000);
const REVIEWER = 'reviewer-token-0123456789abcdefghijklmnopqrstuv';
const OUTSIDER = 'outsider-token-0123456789abcdefghijklmnopqrstuv';
const TEXT = {
  search: 'backups of the billing service run nightly at 02:00 UTC',
  port1: 'the staging database runs on port 5433',
  port2: 'staging db listens on 5434 since the move',
  proposed: 'deploys freeze on fridays after noon',
  secret: 'the vault master key rotates every month',
  markup: 'markup stays text: <img src="x"> <b>bold</b>',
};

const [binary, artifacts] = process.argv.slice(2);
if (!binary || !artifacts) {
  console.log('usage: console_e2e.mjs VASANA_BINARY ARTIFACT_DIR');
  process.exit(2);
}
const uiDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'frontends', 'ui');
const tmp = mkdtempSync(join(tmpdir(), 'vasana-ui-'));
let node = null;
let browser = null;
let passed = 0;

function check(ok, what) {
  if (!ok) throw new Error(what);
  passed += 1;
  console.log(`ok ${passed} - ${what}`);
}

// Stops everything at once: the watchdog's way out, when awaiting may hang. Chromium runs in a
// process group of its own (puppeteer starts it detached): the group goes, renderers included.
function killAll() {
  const chromium = browser?.process();
  if (chromium?.pid && chromium.exitCode === null) {
    try {
      process.kill(-chromium.pid, 'SIGKILL');
    } catch {
      chromium.kill('SIGKILL');
    }
  }
  node?.child.kill('SIGKILL');
  for (const dir of [tmp, node?.root]) {
    try {
      if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (err) {
      console.log(`watchdog: ${dir} left behind: ${err.message}`);
    }
  }
}

const watchdog = setTimeout(() => {
  console.log(`FAIL: watchdog: the test did not finish within ${WATCHDOG_MS / 1000} s`);
  console.log(`console_e2e: ${passed} passed, 1 failed`);
  killAll();
  process.exit(1);
}, WATCHDOG_MS);

// ---- the node ---------------------------------------------------------------------------------

function config() {
  writeFileSync(join(tmp, 'reviewer.token'), `${REVIEWER}\n`, { mode: 0o600 });
  writeFileSync(join(tmp, 'outsider.token'), `${OUTSIDER}\n`, { mode: 0o600 });
  return `[http]
listen = "127.0.0.1:0"

[realm."team"]
functional_predicates = ["port"]
on_conflict = "contradict"

[clients."reviewer"]
read = ["*"]
write = ["team", "secret"]
review = true
token_file = "${join(tmp, 'reviewer.token')}"

[clients."outsider"]
read = ["team"]
token_file = "${join(tmp, 'outsider.token')}"
`;
}

// The URL of the ready line: "http on http://127.0.0.1:PORT".
async function httpUrl() {
  for (let i = 0; i < 50; i += 1) {
    const m = /http on (http:\/\/127\.0\.0\.1:\d+)/.exec(node.stderr());
    if (m) return m[1];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no "http on" ready line in the node's log: ${node.stderr()}`);
}

async function call(url, path, token, body) {
  const res = await fetch(url + path, {
    method: body ? 'POST' : 'GET',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

async function seed(url) {
  const remember = (body) => call(url, '/v1/remember', REVIEWER, body);
  const ids = {};
  ids.search = (await remember({ realm: 'team', text: TEXT.search, tags: ['ops'],
    facts: [{ subject: 'billing-backup', predicate: 'runs_at', object: '02:00 UTC' }] })).id;
  ids.port1 = (await remember({ realm: 'team', text: TEXT.port1,
    facts: [{ subject: 'staging-db', predicate: 'port', object: '5433' }] })).id;
  ids.port2 = (await remember({ realm: 'team', text: TEXT.port2,
    facts: [{ subject: 'staging-db', predicate: 'port', object: '5434' }] })).id;
  const proposed = await remember({ realm: 'team', text: TEXT.proposed, status: 'proposed' });
  check(proposed.status === 'proposed', 'a memory remembered with status "proposed" is held for review');
  ids.proposed = proposed.id;
  ids.secret = (await remember({ realm: 'secret', text: TEXT.secret })).id;
  await remember({ realm: 'team', text: TEXT.markup });
  return ids;
}

// The node serves the console's files itself, without a token, under the CSP the console is
// written for; no fallback: a node that does not serve them fails the test.
async function checkServed(url) {
  for (const [path, file] of [['/ui/', 'index.html'], ['/ui/console.js', 'console.js'], ['/ui/console.css', 'console.css']]) {
    const res = await fetch(url + path);
    const body = await res.text();
    if (res.status !== 200)
      throw new Error(`the node does not serve the console: GET ${path} answered ${res.status} ${body.slice(0, 120)} ` +
        '(a vasana built with frontends/ui embedded serves it)');
    if (body !== readFileSync(join(uiDir, file), 'utf8'))
      throw new Error(`GET ${path} serves another ${file} than frontends/ui/${file}: the binary embeds the files ` +
        'it was built with; rebuild it');
    check(true, `GET ${path} without a token serves frontends/ui/${file}`);
    check((res.headers.get('content-security-policy') || '').includes("default-src 'self'"),
      `GET ${path} carries Content-Security-Policy: default-src 'self'`);
  }
}

// ---- the browser ------------------------------------------------------------------------------

// Collects what must not happen on any page; `allow` names the refusals a step expects.
function watch(page, origin) {
  const problems = [];
  const allowed = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const refused = /^Failed to load resource: the server responded with a status of (\d+)/.exec(m.text());
    const path = m.location()?.url ? new URL(m.location().url).pathname : '';
    const i = refused ? allowed.findIndex((a) => a.status === Number(refused[1]) && path.startsWith(a.path)) : -1;
    if (i >= 0) allowed.splice(i, 1);
    else problems.push(`console error: ${m.text()} (${m.location()?.url || 'no url'})`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(`${origin}/`)) problems.push(`a request outside the node: ${r.url()}`);
  });
  return {
    allow: (status, path) => allowed.push({ status, path }),
    problems,
  };
}

let shots = 0;
async function pageDone(page, watcher, name) {
  shots += 1;
  await page.screenshot({ path: join(artifacts, `${String(shots).padStart(2, '0')}-${name}.png`), fullPage: true });
  check(watcher.problems.length === 0, `the ${name} page renders with no console or page errors` +
    (watcher.problems.length ? `: ${watcher.problems.join('; ')}` : ''));
}

async function fill(page, selector, value) {
  await page.$eval(selector, (e) => { e.value = ''; });
  await page.type(selector, value);
}

// Waits for the page a route shows to have rendered (route() marks it aria-busy meanwhile).
async function settled(page) {
  await page.waitForFunction(() => {
    const shown = [...document.querySelectorAll('main > section')].find((s) => !s.hidden);
    return shown && !shown.hasAttribute('aria-busy');
  }, { timeout: 10000 });
}

// Submits a form and waits for the API's answer to `path` and for the page to render it.
async function submit(page, form, path) {
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === path, { timeout: 10000 });
  await page.click(`${form} button[type="submit"]`);
  const response = await answered;
  await settled(page);
  return response.status();
}

async function search(page, realms, query, lanes = '') {
  await fill(page, '#search-form [name="realms"]', realms);
  await fill(page, '#search-form [name="q"]', query);
  await fill(page, '#search-form [name="lanes"]', lanes);
  return submit(page, '#search-form', '/v1/recall');
}

const text = (page, selector) => page.$eval(selector, (e) => e.textContent);
const hitTexts = (page) => page.$$eval('#search-result .hit .text', (els) => els.map((e) => e.textContent));
const errorShown = (page) => page.$eval('#error', (e) => (e.hidden ? '' : e.textContent));

async function signIn(page, token) {
  await fill(page, '#signin-token', token);
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/healthz');
  await page.click('#signin-form button[type="submit"]');
  return (await answered).status();
}

// ---- the steps --------------------------------------------------------------------------------

async function signInSteps(page, w, url) {
  await page.goto(`${url}/ui/`, { waitUntil: 'networkidle0' });
  check(await page.$eval('#page-signin', (e) => !e.hidden), 'the console opens on the sign-in page');
  await pageDone(page, w, 'signin');
  w.allow(401, '/healthz');
  check(await signIn(page, 'not-a-client-token-0123456789abcdefghijkl') === 401, 'an unknown token is answered 401');
  await page.waitForFunction(() => document.querySelector('#signin-message').textContent !== '');
  check(await text(page, '#signin-message') === 'token refused', 'an unknown token shows "token refused"');
  check(await page.evaluate(() => sessionStorage.length === 0), 'a refused token is not kept');
  check(await signIn(page, REVIEWER) === 200, 'the reviewer token is checked with GET /healthz');
  await page.waitForSelector('#page-search:not([hidden])');
  check(await page.evaluate((t) => Object.values(sessionStorage).includes(t), REVIEWER), 'the token is kept in sessionStorage');
  await page.waitForFunction(() => document.querySelector('#who').textContent.startsWith('node '));
}

async function searchSteps(page, w, ids) {
  check(await search(page, 'team', 'billing backups nightly') === 200, 'the search posts /v1/recall');
  check((await hitTexts(page)).includes(TEXT.search), 'a search finds the stored memory');
  check(['KNOWN', 'UNSURE'].includes(await text(page, '#verdict')), 'the search shows a KNOWN or UNSURE verdict');
  const hit = `#search-result .hit[data-id="${ids.search}"]`;
  check((await text(page, `${hit} .meta`)).includes('score '), 'a hit shows its score');
  const lanes = await page.$$eval(`${hit} .explain td:first-child`, (els) => els.map((e) => e.textContent));
  check(lanes.includes('keyword'), `a hit shows its per-lane explanation (${lanes.join(', ')})`);
  check((await text(page, '#search-result .summary')).includes('top relevance'), 'the search shows the top relevance');
  await pageDone(page, w, 'search');

  await search(page, 'team', 'zebra xylophone quantum');
  check(await text(page, '#verdict') === 'UNKNOWN', 'a query for something absent is UNKNOWN');
  await search(page, 'team', 'zebra xylophone quantum', 'keyword');
  check((await hitTexts(page)).length === 0 && (await text(page, '#search-result')).includes('No memories found.'),
    'a query for something absent finds nothing in the keyword lane');
  await search(page, 'team', 'billing backups nightly', 'keyword');
  check((await hitTexts(page)).includes(TEXT.search), 'positive control: the keyword lane finds the stored memory');
  await pageDone(page, w, 'search-absent');

  await search(page, 'team', 'markup stays text', 'keyword');
  check((await hitTexts(page)).includes(TEXT.markup) && (await page.$$('#search-result img, #search-result b')).length === 0,
    'markup in a memory is shown as text, never parsed');

  await search(page, 'secret', 'vault master key');
  check((await hitTexts(page)).includes(TEXT.secret), 'negative control: the reviewer, granted, sees the realm "secret"');
}

async function memorySteps(page, w, ids) {
  await search(page, 'team', 'billing backups nightly');
  const opened = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/history'));
  await page.click(`#search-result .hit[data-id="${ids.search}"] a.id`);
  await opened;
  await settled(page);
  check(await text(page, '#memory-text') === TEXT.search, 'a hit opens its memory (GET /v1/memories/{id})');
  const ops = await page.$$eval('#history > li strong', (els) => els.map((e) => e.textContent));
  check(ops[0] === 'put_memory' && ops.includes('add_triplet'), `the memory shows its history (${ops.join(', ')})`);
  const facts = await page.$$eval('.facts td:first-child', (els) => els.map((e) => e.textContent));
  check(facts.includes('billing-backup · runs_at · 02:00 UTC'), 'the memory shows the fact drawn from it');
  await pageDone(page, w, 'memory');
}

async function reviewSteps(page, w, url, ids) {
  await page.click('nav a[data-page="search"]');
  await page.waitForSelector('#page-search:not([hidden])');
  await settled(page);
  await search(page, 'team', 'deploys freeze fridays');
  check(!(await hitTexts(page)).includes(TEXT.proposed), 'before approval the proposed memory is not in recall');

  await page.click('nav a[data-page="review"]');
  await page.waitForSelector('#page-review:not([hidden])');
  await settled(page);
  await fill(page, '#review-form [name="realm"]', 'team');
  await submit(page, '#review-form', '/v1/memories');
  const item = `#review-list li[data-id="${ids.proposed}"]`;
  check(await page.$(item) !== null, 'the review queue lists the proposed memory');
  check((await page.$$('#review-list li')).length === 1, 'the review queue lists nothing but the proposed memory');
  await page.type(`${item} input[name="note"]`, 'confirmed with the release team');
  await pageDone(page, w, 'review');
  const decided = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/review'));
  await page.click(`${item} button.approve`);
  check((await decided).status() === 200, 'Approve posts /v1/memories/{id}/review');
  await page.waitForFunction((s) => document.querySelector(`${s} .outcome`).textContent !== '', {}, item);
  check((await text(page, `${item} .outcome`)).startsWith('Approved (op '), 'the queue shows the approval');
  await pageDone(page, w, 'review-approved');
  const memory = await call(url, `/v1/memories/${ids.proposed}`, REVIEWER);
  check(memory.status === 'approved' && memory.review_decision === 'approve', 'the node holds the memory approved');
  const { history } = await call(url, `/v1/memories/${ids.proposed}/history`, REVIEWER);
  check(history.some((e) => e.op === 'review_decision' && e.fields.note === 'confirmed with the release team'),
    'the note is kept with the decision');

  await page.click('nav a[data-page="search"]');
  await page.waitForSelector('#page-search:not([hidden])');
  await settled(page);
  await search(page, 'team', 'deploys freeze fridays');
  check((await hitTexts(page)).includes(TEXT.proposed), 'after approval the memory is in recall');
  await pageDone(page, w, 'search-after-approval');
}

async function contradictionSteps(page, w, ids) {
  await page.click('nav a[data-page="contradictions"]');
  await page.waitForSelector('#page-contradictions:not([hidden])');
  await settled(page);
  await fill(page, '#contradictions-form [name="realm"]', 'team');
  await submit(page, '#contradictions-form', '/v1/contradictions');
  const shown = await text(page, '#contradictions');
  check(shown.includes('staging-db · port') && shown.includes('5433') && shown.includes('5434'),
    'the contradictions page shows the two ports of staging-db');
  const sources = await page.$$eval('#contradictions a.id', (els) => els.map((e) => e.textContent));
  check(sources.includes(ids.port1) && sources.includes(ids.port2), 'each claim links its source memory');
  check((await text(page, '#conflicts')).includes('Conflicts (0)'), 'the conflicts of GET /v1/conflicts are shown (none)');
  await pageDone(page, w, 'contradictions');
}

async function clusterSteps(page, w, url) {
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/status');
  await page.click('nav a[data-page="cluster"]');
  await answered;
  await settled(page);
  const status = await call(url, '/v1/status', REVIEWER);
  check(await text(page, '#digest') === status.digest, `the cluster page shows the state digest (${status.digest.slice(0, 12)}...)`);
  check((await text(page, '#cluster-view')).includes('writable'), 'the cluster page shows the own writer state');
  const first = await text(page, '#cluster-updated');
  const refreshed = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/status', { timeout: 8000 });
  check((await refreshed).status() === 200, 'the cluster page refreshes by itself');
  await page.waitForFunction((f) => document.querySelector('#cluster-updated').textContent !== f, { timeout: 3000 }, first);
  await pageDone(page, w, 'cluster');
}

async function signOutSteps(page) {
  await page.click('#sign-out');
  await page.waitForSelector('#page-signin:not([hidden])');
  check(await page.evaluate(() => sessionStorage.length === 0), 'sign out clears the token');
  const left = await page.$$eval('#search-result, #memory-view, #review-list, #contradictions-list, #cluster-view',
    (els) => els.map((e) => e.textContent).join(''));
  const typed = await page.$$eval('form input[type="search"], form input[name="realms"]', (els) => els.map((e) => e.value).join(''));
  check(left === '' && typed === '', 'sign out leaves nothing of what was shown or typed');
}

async function refusedSteps(page, w, url, ids) {
  check(await signIn(page, OUTSIDER) === 200, 'the outsider signs in');
  await page.waitForSelector('#page-search:not([hidden])');
  w.allow(403, '/v1/recall');
  check(await search(page, 'secret', 'vault master key') === 403, 'recall in a realm without a grant is answered 403');
  check((await errorShown(page)).includes("client 'outsider' may not read realm 'secret'"), 'the console shows the API\'s 403 message');
  check(await text(page, '#search-result') === '', 'the refused realm shows nothing in the results');
  await pageDone(page, w, 'refused-search');

  w.allow(404, '/v1/memories/');
  w.allow(404, '/v1/memories/');
  const opened = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith('/history'));
  await page.goto(`${url}/ui/#/memory/${ids.secret}`);
  await opened;
  await settled(page);
  check((await errorShown(page)).startsWith('404 not_found'), 'a memory of the refused realm is answered 404');
  await pageDone(page, w, 'refused-memory');

  w.allow(403, '/v1/status');
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/status');
  await page.click('nav a[data-page="cluster"]');
  check((await answered).status() === 403, 'the node status is refused to a client that may not read every realm');
  await settled(page);
  check((await errorShown(page)).includes('read = ["*"]'), 'the cluster page shows the API\'s 403 message');
  check(!(await page.content()).includes(TEXT.secret), 'nothing of the refused realm reached the page');
  await pageDone(page, w, 'refused-cluster');
}

// First paint of the search page, loaded afresh with a query in its address.
async function paintSteps(page, url) {
  await page.goto(`${url}/ui/#/search?realms=team&q=billing+backups+nightly`);
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#verdict', { timeout: 10000 });
  const shown = await page.evaluate(() => performance.now());
  // Paint entries arrive when the frame was presented, which can be after the page asks.
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, { timeout: 5000 });
  const t = await page.evaluate(() => ({
    fp: performance.getEntriesByName('first-paint')[0]?.startTime,
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
  }));
  console.log(`# search page: first paint ${t.fp?.toFixed(0)} ms, first contentful paint ${t.fcp?.toFixed(0)} ms, ` +
    `recall shown by ${shown.toFixed(0)} ms (from navigation start)`);
  check(t.fp !== undefined && t.fp < PAINT_BUDGET_MS, `the search page paints within ${PAINT_BUDGET_MS} ms`);
}

async function main() {
  mkdirSync(artifacts, { recursive: true });
  node = await startNode(binary, { config: config() });
  const url = await httpUrl();
  await checkServed(url);
  const ids = await seed(url);
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    userDataDir: join(tmp, 'chromium-profile'),
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  const w = watch(page, url);
  await signInSteps(page, w, url);
  await searchSteps(page, w, ids);
  await memorySteps(page, w, ids);
  await reviewSteps(page, w, url, ids);
  await contradictionSteps(page, w, ids);
  await clusterSteps(page, w, url);
  await paintSteps(page, url);
  await signOutSteps(page);
  await refusedSteps(page, w, url, ids);
}

let failed = 0;
try {
  await main();
} catch (err) {
  failed = 1;
  console.log(`FAIL: ${err.message}`);
} finally {
  clearTimeout(watchdog);
  await browser?.close().catch(() => browser.process()?.kill('SIGKILL'));
  await node?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`screenshots: ${artifacts}`);
console.log(`console_e2e: ${passed} passed, ${failed} failed`);
process.exit(failed);

// The vasana web console: plain DOM and fetch, no framework, no build step.
// Every call goes to the node's /v1 API with the signed-in client's bearer token, so the console
// shows exactly what that client's grants allow. Text from the node is always set as text, never
// parsed as HTML.
'use strict';

const TOKEN_KEY = 'vasana.console.token';
const REALMS_KEY = 'vasana.console.realms';
const CLUSTER_REFRESH_MS = 5000;
const REVIEW_PAGE = 50;

let clusterTimer = 0;
let realmNamesLoaded = false;

// ---- DOM helpers ----------------------------------------------------------------------------

function $(id) {
  return document.getElementById(id);
}

// An element with attributes and children; a string child becomes a text node.
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === 'class') node.className = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function show(container, ...children) {
  container.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined));
}

// A table with a header row; each row is an array of cells (strings or nodes).
function table(headers, rows) {
  return el('table', {},
    el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows.map((row) => el('tr', {}, row.map((cell) => el('td', {}, cell))))));
}

// A definition list of [label, value] pairs.
function pairList(pairs) {
  return el('dl', { class: 'pairs' }, pairs.map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]));
}

function memoryLink(id) {
  return el('a', { href: `#/memory/${encodeURIComponent(id)}`, class: 'id' }, id);
}

function number(x, digits = 3) {
  return typeof x === 'number' && Number.isFinite(x) ? String(Number(x.toFixed(digits))) : '?';
}

function splitList(text) {
  return (text || '').split(',').map((s) => s.trim()).filter(Boolean);
}

function hint(text) {
  return el('p', { class: 'hint' }, text);
}

// Shown while a page waits for the node; route() removes it when the page fails.
function loading(text = 'Loading…') {
  return el('p', { class: 'hint loading' }, text);
}

// ---- the API ----------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  describe() {
    return this.status ? `${this.status} ${this.code}: ${this.message}` : this.message;
  }
}

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

// Calls the node: GET, or POST with `body` as JSON. Resolves to the answer's JSON; rejects with
// an ApiError carrying the API's status, error code and message.
async function api(path, body) {
  const init = { headers: { Authorization: `Bearer ${token()}` }, cache: 'no-store' };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, 'unreachable', `The node did not answer: ${err.message}`);
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.error || 'error', data.message || res.statusText);
  return data;
}

function memoryPath(id, what = '') {
  return `/v1/memories/${encodeURIComponent(id)}${what}`;
}

// ---- errors -------------------------------------------------------------------------------

function showError(text) {
  $('error').textContent = text;
  $('error').hidden = false;
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

// A refused token ends the session; anything else is shown above the page.
function reportError(err) {
  if (err instanceof ApiError && err.status === 401) return signOut('token refused');
  showError(err instanceof ApiError ? err.describe() : `The console failed: ${err.message}`);
}

// ---- sign in and out --------------------------------------------------------------------------

async function signIn(event) {
  event.preventDefault();
  const input = $('signin-token');
  sessionStorage.setItem(TOKEN_KEY, input.value.trim());
  $('signin-message').textContent = '';
  try {
    const health = await api('/healthz');
    input.value = '';
    showWho(health);
    go(location.hash.length > 2 ? location.hash : '#/search');
  } catch (err) {
    sessionStorage.removeItem(TOKEN_KEY);
    $('signin-message').textContent = err.status === 401 ? 'token refused' : err.describe();
  }
}

// Forgets the token and everything shown with it.
function signOut(message = '') {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(REALMS_KEY);
  stopClusterRefresh();
  for (const form of document.forms) form.reset();
  for (const id of ['search-result', 'memory-view', 'review-list', 'contradictions-list', 'cluster-view', 'realm-names', 'who'])
    show($(id));
  $('cluster-updated').textContent = '';
  realmNamesLoaded = false;
  clearError();
  $('signin-message').textContent = message;
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  showPage('signin');
}

function showWho(health) {
  const state = health.writable ? 'writable' : `read-only: ${health.read_only_reason}`;
  $('who').textContent = `node ${health.instance} (${state})`;
}

async function refreshWho() {
  try {
    showWho(await api('/healthz'));
  } catch (err) {
    reportError(err);
  }
}

// ---- routing ----------------------------------------------------------------------------------

const pages = {
  search: renderSearch,
  memory: renderMemory,
  review: renderReview,
  contradictions: renderContradictions,
  cluster: renderCluster,
};

// #/PAGE/ARG?PARAMS
function currentRoute() {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [page, ...rest] = path.split('/');
  return { page: page || 'search', arg: decodeURIComponent(rest.join('/')), params: new URLSearchParams(query) };
}

// Moves to a hash; the same hash again runs its page again.
function go(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function showPage(name) {
  for (const section of document.querySelectorAll('main > section')) section.hidden = section.id !== `page-${name}`;
  const signedIn = name !== 'signin';
  $('nav').hidden = !signedIn;
  $('sign-out').hidden = !signedIn;
  for (const link of $('nav').querySelectorAll('a')) {
    if (link.dataset.page === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function route() {
  stopClusterRefresh();
  clearError();
  if (!token()) return showPage('signin');
  const { page, arg, params } = currentRoute();
  if (!pages[page]) return go('#/search');
  showPage(page);
  const section = $(`page-${page}`);
  section.setAttribute('aria-busy', 'true');
  try {
    await pages[page](arg, params);
  } catch (err) {
    for (const waiting of section.querySelectorAll('.loading')) waiting.remove();
    reportError(err);
  } finally {
    section.removeAttribute('aria-busy');
  }
}

// The realm names the client may read, offered in the realm fields (once per sign-in).
async function loadRealmNames() {
  if (realmNamesLoaded) return;
  realmNamesLoaded = true;
  try {
    const { realms } = await api('/v1/realms');
    show($('realm-names'), realms.map((r) => el('option', { value: r.realm }, `${r.realm} (${r.memories})`)));
  } catch (err) {
    realmNamesLoaded = false;
    reportError(err);
  }
}

// The realms last used, to fill a realm field the route leaves empty.
function lastRealms(realms) {
  if (realms) sessionStorage.setItem(REALMS_KEY, realms);
  return realms || sessionStorage.getItem(REALMS_KEY) || '';
}

// ---- search -----------------------------------------------------------------------------------

function submitSearch(event) {
  event.preventDefault();
  const form = event.target;
  const params = new URLSearchParams({ realms: form.realms.value.trim(), q: form.q.value.trim() });
  if (form.limit.value && form.limit.value !== '10') params.set('limit', form.limit.value);
  if (form.lanes.value.trim()) params.set('lanes', form.lanes.value.trim());
  if (form.staged.checked) params.set('staged', '1');
  go(`#/search?${params}`);
}

function fillSearchForm(form, params) {
  form.realms.value = lastRealms(params.get('realms'));
  form.q.value = params.get('q') || '';
  form.limit.value = params.get('limit') || '10';
  form.lanes.value = params.get('lanes') || '';
  form.staged.checked = params.get('staged') === '1';
}

function recallBody(params) {
  const body = { query: params.get('q'), realms: splitList(params.get('realms')), explain: true };
  if (params.get('limit')) body.limit = Number(params.get('limit'));
  const lanes = splitList(params.get('lanes'));
  if (lanes.length) body.lanes = lanes;
  if (params.get('staged') === '1') body.staged = true;
  return body;
}

async function renderSearch(_, params) {
  fillSearchForm($('search-form'), params);
  show($('search-result'));
  loadRealmNames();
  if (!params.get('q') || !params.get('realms')) return;
  show($('search-result'), loading('Searching…'));
  const answer = await api('/v1/recall', recallBody(params));
  show($('search-result'), recallSummary(answer), correctionsView(answer.corrections), hitsView(answer.hits));
}

function verdictText(answer) {
  if (answer.verdict === 'KNOWN') return 'the realms probably hold an answer.';
  if (answer.verdict === 'UNKNOWN') return 'the realms probably hold no answer; any hits are only the closest memories.';
  return 'unsure whether the realms hold an answer: read the hits.';
}

function recallSummary(answer) {
  const evidence = answer.evidence || {};
  return el('div', { class: 'summary' },
    el('p', {},
      el('span', { class: `verdict verdict-${answer.verdict}`, id: 'verdict' }, answer.verdict), ' ', verdictText(answer)),
    pairList([
      ['top relevance', number(answer.top_relevance)],
      ['evidence', `keyword ${number(evidence.keyword)}, semantic ${number(evidence.semantic)}`],
      ['lanes run', (answer.lanes || []).join(', ')],
    ]),
    (answer.notes || []).map((n) => el('p', { class: 'note' }, n)));
}

function correctionsView(corrections) {
  if (!corrections || !corrections.length) return null;
  return el('div', { class: 'corrections' }, el('h3', {}, 'Corrections'),
    el('ul', {}, corrections.map((c) =>
      el('li', {}, `"${c.wrong}" should be "${c.right}"`, c.note ? ` (${c.note})` : '', ` — ${c.realm}`))));
}

function hitsView(hits) {
  if (!hits.length) return hint('No memories found.');
  return el('ol', { class: 'hits' }, hits.map(hitView));
}

function hitView(hit) {
  const when = hit.valid_from !== 'open' || hit.valid_to !== 'open' ? `valid ${hit.valid_from} to ${hit.valid_to}` : null;
  return el('li', { class: 'card hit', 'data-id': hit.id },
    el('p', { class: 'text' }, hit.text),
    el('p', { class: 'meta' },
      `score ${number(hit.score)} · ${hit.realm} · ${hit.kind} · ${hit.status} · recorded ${hit.recorded_at}`,
      hit.tags.length ? ` · tags ${hit.tags.join(', ')}` : '', when ? ` · ${when}` : '',
      hit.future ? ' · holds only from its valid_from, in the future' : '', ' · ', memoryLink(hit.id)),
    hit.explain ? explainView(hit.explain) : null);
}

function explainView(explain) {
  return el('details', { class: 'explain' },
    el('summary', {}, `Why: ${explain.lanes.map((l) => `${l.lane} #${l.rank}`).join(', ') || 'no lane'}`),
    table(['lane', 'rank', 'lane score'], explain.lanes.map((l) => [l.lane, String(l.rank), number(l.score)])),
    el('p', { class: 'meta' },
      `relevance ${number(explain.relevance)} × kind prior ${number(explain.kind_prior)} × status ${number(explain.status)}` +
      ` × epistemic ${number(explain.epistemic)} × strength ${number(explain.strength)} × phrase ${number(explain.phrase)}`));
}

// ---- one memory -------------------------------------------------------------------------------

async function renderMemory(id) {
  if (!id) return show($('memory-view'), hint('No memory id in the address: open one from a search.'));
  show($('memory-view'), loading());
  const [memory, { history }] = await Promise.all([api(memoryPath(id)), api(memoryPath(id, '/history'))]);
  show($('memory-view'), memoryView(memory), factsView(factsFromHistory(id, history)), historyView(history));
}

function memoryView(m) {
  return el('article', { class: 'memory' },
    el('h2', {}, 'Memory ', el('span', { class: 'id' }, m.id)),
    el('p', { class: 'text', id: 'memory-text' }, m.text),
    pairList([
      ['realm', m.realm], ['kind', m.kind], ['status', m.status + (m.status_reason ? ` (${m.status_reason})` : '')],
      ['review', m.reviewed ? m.review_decision : 'not reviewed'], ['tags', m.tags.join(', ')], ['ref', m.ref],
      ['replaced by', m.replaced_by ? memoryLink(m.replaced_by) : ''], ['epistemic', m.epistemic],
      ['confidence', String(m.confidence)], ['pinned', m.pinned ? 'yes' : 'no'],
      ['valid', `${m.valid_from} to ${m.valid_to}`], ['recorded', m.recorded_at], ['updated', m.updated_at],
      ['source', [m.source_tool, m.source_session].filter(Boolean).join(', ')], ['claim', m.claim_status],
      ['erased', m.erased ? `yes, by ${m.erased_by}` : ''],
    ].filter(([, v]) => v !== '')));
}

// The facts drawn from a memory, as its history shows them: each add_triplet whose source is
// the memory, retracted by a later retract_triplet of it or by a later new text (a new text
// retracts the facts drawn from the old one). Ops that lost to a concurrent op change nothing.
function factsFromHistory(id, history) {
  const found = [];
  for (const entry of history) {
    const f = entry.fields || {};
    if (entry.lost_to) continue;
    if (entry.op === 'add_triplet' && f.source_memory === id) found.push({ ...f, id: entry.id, retracted: '' });
    for (const fact of found) {
      if (fact.retracted) continue;
      if (entry.op === 'retract_triplet' && f.triplet === fact.id) fact.retracted = `retracted by ${entry.id}`;
      if (entry.op === 'update_content' && f.text) fact.retracted = `retracted by the new text of ${entry.id}`;
    }
  }
  return found;
}

function factsView(found) {
  const rows = found.map((f) => [`${f.subject} · ${f.predicate} · ${f.object}`,
    f.valid_from === 'open' && f.valid_to === 'open' ? 'always' : `${f.valid_from} to ${f.valid_to}`,
    f.functional ? 'yes' : 'no', f.retracted || 'live', f.id]);
  return el('section', { class: 'facts' }, el('h3', {}, 'Facts drawn from it'),
    hint('As its history shows them: each triplet added with this memory as its source, and what retracted it.'),
    rows.length ? table(['fact', 'valid', 'functional', 'state', 'op'], rows) : hint('None.'));
}

function historyView(history) {
  return el('section', { class: 'history' }, el('h3', {}, 'History'),
    el('ol', { class: 'ops', id: 'history' }, history.map((e) =>
      el('li', {},
        el('p', {}, el('strong', {}, e.op), ` ${e.recorded_at} · op ${e.id} · writer ${e.writer}`,
          e.chain_verified ? ' · chain verified' : ' · chain NOT verified',
          e.lost_to ? ` · lost to ${e.lost_to_op} ${e.lost_to}` : ''),
        e.fields ? el('p', { class: 'fields' }, fieldsText(e.fields)) : null))));
}

// An op's fields on one line: "name: value" pairs, values other than strings as JSON.
function fieldsText(fields) {
  return Object.entries(fields).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' · ');
}

// ---- review queue -----------------------------------------------------------------------------

function submitRealm(page) {
  return (event) => {
    event.preventDefault();
    go(`#/${page}?${new URLSearchParams({ realm: event.target.realm.value.trim() })}`);
  };
}

async function renderReview(_, params) {
  const realms = lastRealms(params.get('realm'));
  $('review-form').realm.value = realms;
  show($('review-list'));
  loadRealmNames();
  for (const realm of splitList(realms)) {
    const list = el('ul', { class: 'queue' });
    $('review-list').append(el('h3', {}, realm), list);
    await appendReviewPage(list, realm, '');
  }
}

// One page of the realm's undecided proposed memories, then a button for the next.
async function appendReviewPage(list, realm, after) {
  const query = new URLSearchParams({ realm, status: 'proposed', unreviewed: 'true', limit: String(REVIEW_PAGE) });
  if (after) query.set('after', after);
  const page = await api(`/v1/memories?${query}`);
  list.append(...page.memories.map(reviewItem));
  if (!list.children.length) list.after(hint(`Nothing in ${realm} is waiting for review.`));
  if (page.next) list.after(moreButton(list, realm, page.next));
}

function moreButton(list, realm, next) {
  const button = el('button', { type: 'button' }, 'Show more');
  button.addEventListener('click', () => {
    button.remove();
    appendReviewPage(list, realm, next).catch(reportError);
  });
  return button;
}

function reviewItem(m) {
  const note = el('input', { type: 'text', name: 'note', placeholder: 'note (optional)', 'aria-label': 'review note' });
  const approve = el('button', { type: 'button', class: 'approve' }, 'Approve');
  const reject = el('button', { type: 'button', class: 'reject' }, 'Reject');
  const outcome = el('p', { class: 'outcome', role: 'status' });
  const item = el('li', { class: 'card', 'data-id': m.id },
    el('p', { class: 'text' }, m.text),
    el('p', { class: 'meta' }, `${m.kind} · recorded ${m.recorded_at}`, m.source_tool ? ` · via ${m.source_tool}` : '',
      m.tags.length ? ` · tags ${m.tags.join(', ')}` : '', ' · ', memoryLink(m.id)),
    el('div', { class: 'actions' }, note, approve, reject), outcome);
  approve.addEventListener('click', () => decide(m.id, 'approve', item));
  reject.addEventListener('click', () => decide(m.id, 'reject', item));
  return item;
}

async function decide(id, decision, item) {
  const controls = item.querySelectorAll('input, button');
  const outcome = item.querySelector('.outcome');
  for (const c of controls) c.disabled = true;
  try {
    const written = await api(memoryPath(id, '/review'), { decision, note: item.querySelector('input').value.trim() });
    const pending = written.replicated === false ? `; written here, not yet replicated: ${written.message}` : '';
    outcome.textContent = `${decision === 'approve' ? 'Approved' : 'Rejected'} (op ${written.id})${pending}`;
    item.classList.add(`decided-${decision}`);
  } catch (err) {
    if (err.status === 401) return reportError(err);
    outcome.textContent = err.describe();
    for (const c of controls) c.disabled = false;
  }
}

// ---- contradictions and conflicts ---------------------------------------------------------------

async function renderContradictions(_, params) {
  const realms = lastRealms(params.get('realm'));
  $('contradictions-form').realm.value = realms;
  show($('contradictions-list'));
  loadRealmNames();
  if (!realms) return;
  const query = new URLSearchParams({ realm: splitList(realms).join(',') });
  show($('contradictions-list'), loading());
  const [{ contradictions }, { conflicts }] = await Promise.all([
    api(`/v1/contradictions?${query}`), api(`/v1/conflicts?${query}`)]);
  show($('contradictions-list'), contradictionsView(contradictions), conflictsView(conflicts));
}

function contradictionsView(list) {
  return el('section', { id: 'contradictions' }, el('h3', {}, `Open contradictions (${list.length})`),
    hint('Functional facts of one subject with different objects over overlapping valid times.'),
    list.length ? list.map((c) => el('div', { class: 'card' },
      el('p', {}, el('strong', {}, `${c.subject} · ${c.predicate}`), ` in ${c.realm}`),
      table(['object', 'valid', 'source memory', 'triplet'], c.claims.map((k) => [k.object,
        `${k.valid_from} to ${k.valid_to}`, k.source_memory ? memoryLink(k.source_memory) : 'none', k.triplet]))))
      : hint('None.'));
}

function conflictsView(list) {
  return el('section', { id: 'conflicts' }, el('h3', {}, `Conflicts (${list.length})`),
    hint('Updates and review decisions that lost to an op made at once on another node.'),
    list.length ? table(['memory', 'lost', 'at', 'lost to', 'at'], list.map((c) => [memoryLink(c.memory),
      `${c.lost_op} ${c.lost}`, c.lost_at, `${c.to_op} ${c.to}`, c.to_at])) : hint('None.'));
}

// ---- cluster ----------------------------------------------------------------------------------

async function renderCluster() {
  await refreshCluster();
  if (currentRoute().page !== 'cluster' || !token()) return;
  clusterTimer = setInterval(() => refreshCluster().catch(clusterRefreshFailed), CLUSTER_REFRESH_MS);
}

async function refreshCluster() {
  const status = await api('/v1/status');
  show($('cluster-view'), clusterView(status));
  $('cluster-updated').textContent =
    `Updated ${new Date().toLocaleTimeString()}; refreshes every ${CLUSTER_REFRESH_MS / 1000} s.`;
}

// A refusal stops the refresh; any other failure is tried again next time.
function clusterRefreshFailed(err) {
  if (err.status === 401 || err.status === 403) {
    stopClusterRefresh();
    return reportError(err);
  }
  const why = err instanceof ApiError ? err.describe() : err.message;
  $('cluster-updated').textContent = `The last refresh failed (${why}); trying again.`;
}

function stopClusterRefresh() {
  clearInterval(clusterTimer);
  clusterTimer = 0;
}

function clusterView(s) {
  return [nodeView(s), problemsView(s.problems), writersView(s.writers), lagsView(s.writer_lags),
    peersView(s.peers), membersView(s.members)];
}

function nodeView(s) {
  const own = s.own_writer;
  return el('section', { class: 'summary' }, pairList([
    ['node', s.instance], ['cluster', s.cluster || 'none: replication off'],
    ['digest', el('code', { id: 'digest' }, s.digest)],
    ['at applied vector', el('code', {}, s.digest_vector)],
    ['own writer', own.state + (own.reason ? `: ${own.reason}` : '') +
      (own.io_failures ? ` (${own.io_failures} I/O failures since start)` : '')],
    ['memories', String(s.memories)], ['conflicts', String(s.conflicts)],
    ['lane backlog', String(s.lanes_backlog)], ['remote ops applied', String(s.applied_remote_ops)],
  ]));
}

function problemsView(problems) {
  return el('section', {}, el('h3', {}, `Writer problems (${problems.length})`),
    problems.length ? table(['writer', 'problem', 'seqno', 'detail'],
      problems.map((p) => [p.writer, p.problem, String(p.seqno), p.detail])) : hint('None.'));
}

function writersView(writers) {
  return el('section', {}, el('h3', {}, `Writers (${writers.length})`),
    table(['writer', 'applied seqno', ''], writers.map((w) => [w.writer, String(w.applied_seqno), w.own ? 'own' : ''])));
}

function lagsView(lags) {
  return el('section', {}, el('h3', {}, 'Lag per writer, over all peers'),
    lags.length ? table(['writer', 'highest known seqno', 'applied', 'lag (ops)', 'seconds since caught up'],
      lags.map((l) => [l.writer, String(l.known_seqno), String(l.applied_seqno), String(l.lag_ops), number(l.lag_seconds, 2)]))
      : hint('No writer advertised by a peer.'));
}

function heard(seconds) {
  if (typeof seconds !== 'number') return '?';
  return seconds < 0 ? 'never' : `${number(seconds, 1)} s ago`;
}

function peersView(peers) {
  return el('section', {}, el('h3', {}, `Peers (${peers.length})`),
    peers.length ? peers.map(peerView) : hint('None configured.'));
}

function peerView(p) {
  return el('div', { class: 'card peer' },
    el('p', {}, el('strong', {}, p.address), ' ', el('span', { class: p.up ? 'up' : 'down' }, p.up ? 'up' : 'down'),
      ` · instance ${p.instance || 'unknown'} · last heard ${heard(p.last_heard_s)}`,
      ` · chunks ${p.chunks_received} received, ${p.chunks_refused} refused`),
    p.writers.length ? table(['writer', 'peer seqno', 'applied', 'lag (ops)', 'seconds since caught up'],
      p.writers.map((w) => [w.writer, String(w.peer_seqno), String(w.applied_seqno), String(w.lag_ops), number(w.lag_seconds, 2)]))
      : hint('No writers advertised.'));
}

function membersView(members) {
  return el('section', {}, el('h3', {}, `Members (${members.length})`),
    members.length ? table(['name', 'address', 'public key', 'admitted', 'by'],
      members.map((m) => [m.name, m.address, el('code', {}, m.public_key), m.admitted ? 'yes' : 'no', m.by]))
      : hint('None.'));
}

// ---- start ------------------------------------------------------------------------------------

function start() {
  $('signin-form').addEventListener('submit', signIn);
  $('sign-out').addEventListener('click', () => signOut());
  $('search-form').addEventListener('submit', submitSearch);
  $('review-form').addEventListener('submit', submitRealm('review'));
  $('contradictions-form').addEventListener('submit', submitRealm('contradictions'));
  window.addEventListener('hashchange', route);
  if (token()) refreshWho();
  route();
}

start();

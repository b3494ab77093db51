// docs/openapi.yaml against a real `vasana serve`:
//   sh tests/openapi/run.sh check.mjs VASANA_BINARY DOC_PATH
// (a) the document passes a real OpenAPI validator (SwaggerParser.validate) and what that leaves
//     unchecked for 3.1 (every path template's parameter defined, operationIds unique, every
//     schema compiling under Ajv's strict mode); broken copies of it do not;
// (b) two nodes of its own are started (HTTP on 127.0.0.1, clients with token files of mode 0600):
//     A with four clients of different grants, B with sync.ack = "replicated:1" and no peer that
//     could confirm (so writes answer 202), a low failed-login limit and small connection limits;
// (c) real requests cover every documented operation, its success answers and its documented
//     errors (401, 403, 404, 400, 409, 202, 413, 429, 503, 408 and the HTTP-level refusals); each
//     answer's status must be documented for its operation and its body must match the schema
//     of that status (Ajv, JSON Schema 2020-12), its documented headers present; a request body
//     the server accepted must match the documented request schema, and the bodies meant to break
//     it must not;
// (d) both ways (that the document's operations are exactly the router's table is the unit test
//     tests/frontends/openapi_routes_test.cpp, which reads the table itself): every operation was
//     answered with success at least once, every documented path with a method it does not take
//     is answered 405 naming the documented methods in Allow, HEAD is answered like GET, and an
//     unknown path is 404 no_route. GET /v1/openapi.json must answer this document as JSON.
// Negative controls: a real answer with a required field removed, one with an unknown field and
// one checked against another operation's schema must all be rejected by the validator.
// Bounded by a 90 s watchdog; the nodes are stopped and the temporary directory removed at the end.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import * as yaml from 'js-yaml';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

const [binary, docPath] = process.argv.slice(2);
if (!binary || !docPath) {
  console.error('usage: run.sh check.mjs VASANA_BINARY DOC_PATH');
  process.exit(2);
}
const t0 = Date.now();

// ---- bookkeeping -------------------------------------------------------------------------------

let passed = 0;
const failures = [];
function check(cond, what, detail) {
  if (cond) {
    ++passed;
    return true;
  }
  const line = detail === undefined ? what : `${what}\n    ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`;
  failures.push(line);
  console.log(`FAIL: ${line}`);
  return false;
}

const root = mkdtempSync(join(tmpdir(), 'vasana-openapi-'));
const nodes = [];
function cleanupNow() {
  for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
}
const watchdog = setTimeout(() => {
  console.log('FAIL: the test did not finish within 90 s');
  cleanupNow();
  process.exit(1);
}, 90000);

// ---- the document --------------------------------------------------------------------------------

const doc = yaml.load(readFileSync(docPath, 'utf8'));
try {
  await SwaggerParser.validate(structuredClone(doc));
  check(true, 'SwaggerParser.validate');
  console.log(`ok: ${docPath} is a valid OpenAPI ${doc.openapi} document`);
} catch (e) {
  check(false, 'SwaggerParser.validate rejects the document', e.message);
}
// Negative controls of the document validator: a response without its required description,
// a $ref to a schema that is not there.
for (const [what, breakIt] of [
  ['a response without a description', (d) => delete d.paths['/healthz'].get.responses['200'].description],
  ['a $ref to a missing schema', (d) => { d.paths['/healthz'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' }; }],
]) {
  const broken = structuredClone(doc);
  breakIt(broken);
  let rejected = false;
  try {
    await SwaggerParser.validate(broken);
  } catch {
    rejected = true;
  }
  check(rejected, `negative control: SwaggerParser.validate accepts ${what}`);
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

// What SwaggerParser does not check in a 3.1 document: every {param} of a path template has a
// path parameter (path level or operation level) and no path parameter lacks its template;
// operationIds are unique. The problems found, [] for none.
function semanticProblems(d) {
  const problems = [];
  const ids = new Map();
  const param = (p) => (p && p.$ref ? d.components.parameters[p.$ref.slice('#/components/parameters/'.length)] : p);
  for (const [path, item] of Object.entries(d.paths)) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const m of METHODS) {
      if (!item[m]) continue;
      const inPath = [...(item.parameters || []), ...(item[m].parameters || [])].map(param).filter((p) => p && p.in === 'path');
      for (const t of templated)
        if (!inPath.some((p) => p.name === t && p.required === true)) problems.push(`${m} ${path}: {${t}} has no required path parameter`);
      for (const p of inPath) if (!templated.includes(p.name)) problems.push(`${m} ${path}: path parameter ${p.name} is not in the path`);
      const id = item[m].operationId;
      if (!id) problems.push(`${m} ${path} has no operationId`);
      else if (ids.has(id)) problems.push(`operationId ${id} of ${m} ${path} is also ${ids.get(id)}'s`);
      else ids.set(id, `${m} ${path}`);
    }
  }
  return problems;
}
check(semanticProblems(doc).length === 0, 'the document has path parameters and operationIds in order', semanticProblems(doc));
for (const [what, breakIt] of [
  ['a path whose {id} has no parameter', (d) => delete d.paths['/v1/memories/{id}'].parameters],
  ['two operations with one operationId', (d) => { d.paths['/v1/realms'].get.operationId = 'getHealth'; }],
]) {
  const broken = structuredClone(doc);
  breakIt(broken);
  check(semanticProblems(broken).length > 0, `negative control: the semantic check accepts ${what}`);
}
const ops = [];
for (const [path, item] of Object.entries(doc.paths)) {
  for (const m of METHODS) {
    if (!item[m]) continue;
    const source = path.replace(/\{[^}]+\}/g, '([^/]+)');
    ops.push({ key: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), path, source, regex: new RegExp(`^${source}$`), op: item[m] });
  }
}
function opFor(method, path) {
  const m = method === 'HEAD' ? 'GET' : method;
  return ops.find((o) => o.method === m && o.regex.test(path));
}

// ---- schemas -----------------------------------------------------------------------------------

const SCHEMAS_ID = 'urn:vasana:openapi-schemas';
function rewriteRefs(value, prefix) {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, prefix));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `${prefix}#/$defs/${v.slice('#/components/schemas/'.length)}`
        : rewriteRefs(v, prefix);
    }
    return out;
  }
  return value;
}
const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
addFormats(ajv);
ajv.addSchema({ $id: SCHEMAS_ID, $defs: rewriteRefs(doc.components.schemas, '') });
const compiled = new Map();
// Every component schema compiles under Ajv's strict mode (an unknown keyword or type fails);
// negative control: a schema with the type "int" does not.
for (const name of Object.keys(doc.components.schemas)) {
  try {
    ajv.getSchema(`${SCHEMAS_ID}#/$defs/${name}`) || ajv.compile({ $ref: `${SCHEMAS_ID}#/$defs/${name}` });
    check(true, name);
  } catch (e) {
    check(false, `schema ${name} does not compile: ${e.message}`);
  }
}
{
  const strictAjv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false });
  let refused = false;
  try {
    strictAjv.compile({ type: 'object', properties: { seqno: { type: 'int' } } });
  } catch {
    refused = true;
  }
  check(refused, 'negative control: Ajv compiles a schema of type "int"');
}
function validatorOf(schema) {
  const key = JSON.stringify(schema);
  if (!compiled.has(key)) compiled.set(key, ajv.compile(rewriteRefs(schema, SCHEMAS_ID)));
  return compiled.get(key);
}
const deref = (obj, kind) =>
  obj && obj.$ref ? doc.components[kind][obj.$ref.slice(`#/components/${kind}/`.length)] : obj;
function responseOf(op, status) {
  return deref(op.op.responses[String(status)], 'responses');
}
function requestSchemaOf(op) {
  const body = deref(op.op.requestBody, 'requestBodies');
  return body ? body.content['application/json'].schema : undefined;
}
const errorsText = (v) => JSON.stringify(v.errors, null, 0);

// ---- nodes and requests --------------------------------------------------------------------------

const TOKENS = {
  agent: 'tok-agent-a-0123456789abcdefghijklmnopqrstuvwxyz',
  reader: 'tok-reader-0123456789abcdefghijklmnopqrstuvwxyz',
  nogrants: 'tok-nogrants-0123456789abcdefghijklmnopqrstuvwxyz',
  dashboard: 'tok-dashboard-0123456789abcdefghijklmnopqrstuvwxyz',
};

function writeSecret(path, text) {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

// A node in DIR: `vasana init`, a config of [http] (extra lines after listen) and the clients,
// then `vasana serve` until its ready line names the HTTP URL.
async function startNode(name, httpExtra, clients, tail = '') {
  const dir = join(root, name);
  mkdirSync(dir);
  const data = join(dir, 'data');
  const init = spawnSync(binary, ['init', '--data', data], { encoding: 'utf8', timeout: 20000 });
  if (init.status !== 0) throw new Error(`vasana init failed: ${init.error ? init.error.message : init.stderr}`);
  let config = `[http]\nlisten = "127.0.0.1:0"\n${httpExtra}\n`;
  for (const [client, grants] of Object.entries(clients)) {
    writeSecret(join(dir, `${client}.token`), `${TOKENS[client]}\n`);
    config += `\n[clients."${client}"]\n${grants}token_file = "${client}.token"\n`;
  }
  config += tail;
  writeFileSync(join(dir, 'vasana.toml'), config);
  const child = spawn(binary, ['serve', '--data', data, '--config', join(dir, 'vasana.toml')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const node = { name, dir, child, stderr: () => stderr };
  nodes.push(node);
  const deadline = Date.now() + 20000;
  for (;;) {
    const m = /http on (http:\/\/127\.0\.0\.1:([0-9]+))/.exec(stderr);
    if (m) {
      node.url = m[1];
      node.port = Number(m[2]);
      return node;
    }
    if (child.exitCode !== null) throw new Error(`vasana serve (${name}) exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`vasana serve (${name}) named no HTTP URL within 20 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function stopNode(node) {
  if (node.child.exitCode !== null) return;
  const exited = new Promise((r) => node.child.once('exit', r));
  node.child.kill('SIGTERM');
  const timer = setTimeout(() => node.child.kill('SIGKILL'), 10000);
  await exited;
  clearTimeout(timer);
}

// One request on a connection of its own; the answer's status, headers and body text.
function send(node, method, path, { token, body, headers = {}, localAddress } = {}) {
  return new Promise((resolvePromise, reject) => {
    const h = { ...headers };
    if (token) h.Authorization = `Bearer ${token}`;
    let payload;
    if (body !== undefined) {
      payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
      h['Content-Type'] = 'application/json';
      h['Content-Length'] = payload.length;
    }
    const req = http.request({ host: '127.0.0.1', port: node.port, method, path, headers: h, agent: false, localAddress, timeout: 15000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolvePromise({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 15 s`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

// Raw bytes on a connection of their own (from localAddress), and the one answer read back
// (status line, headers, Content-Length body); sockets: connections to hold open meanwhile.
function raw(node, bytes, { localAddress, timeoutMs = 10000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port: node.port, localAddress });
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (err, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      err ? reject(err) : resolvePromise(value);
    };
    const timer = setTimeout(() => finish(new Error('no answer in time to a raw request')), timeoutMs);
    const tryParse = () => {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(head[0].split(' ')[1]);
      const headers = {};
      for (const line of head.slice(1)) {
        const c = line.indexOf(':');
        headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
      }
      const length = Number(headers['content-length'] || 0);
      if (buf.length < end + 4 + length) return;
      finish(null, { status, headers, text: buf.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      tryParse();
    });
    sock.on('error', (e) => (buf.length ? tryParse() : finish(e)));
    sock.on('close', () => finish(new Error(`connection closed without a whole answer: ${JSON.stringify(buf.toString('latin1'))}`)));
    if (bytes !== null) sock.write(bytes);
  });
}

// ---- checking answers ----------------------------------------------------------------------------

const seen = new Map(); // operation key -> Map(status -> count)
const samples = new Map(); // "KEY STATUS" -> a parsed body
let requests = 0;

// Checks an answer of method+path against the document: the scenario's expected status, the
// status documented for the operation, the body against that status's schema, the documented
// headers. With reqBody: a 2xx must come from a body the request schema accepts; with
// schemaInvalid, the request schema must refuse the body. Returns the parsed body.
function verify(label, method, path, res, { expect, reqBody, schemaInvalid = false } = {}) {
  ++requests;
  const where = `${label}: ${method} ${path} -> ${res.status} ${res.text.slice(0, 600)}`;
  const op = opFor(method, path.split('?')[0]);
  if (!check(op, `${where}\n    no documented operation answers this path`)) return undefined;
  if (expect !== undefined) {
    const allowed = Array.isArray(expect) ? expect : [expect];
    check(allowed.includes(res.status), `${where}\n    expected status ${allowed.join(' or ')}`);
  }
  const response = responseOf(op, res.status);
  if (!check(response, `${where}\n    status ${res.status} is not documented for ${op.key}`)) return undefined;
  if (!seen.has(op.key)) seen.set(op.key, new Map());
  seen.get(op.key).set(res.status, (seen.get(op.key).get(res.status) || 0) + 1);
  for (const [name, header] of Object.entries(response.headers || {})) {
    const value = res.headers[name.toLowerCase()];
    const h = deref(header, 'headers');
    if (value === undefined) {
      check(!h.required, `${where}\n    the required header ${name} is missing`);
      continue;
    }
    const v = validatorOf(h.schema);
    const typed = h.schema.type === 'integer' ? Number(value) : value;
    check(v(typed), `${where}\n    header ${name}: ${value} does not match its schema`, errorsText(v));
  }
  let body;
  if (method === 'HEAD') {
    check(res.text === '', `${where}\n    a HEAD answer has a body`);
  } else {
    const media = response.content && response.content['application/json'];
    if (check(media, `${where}\n    the documented answer has no application/json content`)) {
      check(String(res.headers['content-type'] || '').startsWith('application/json'), `${where}\n    Content-Type is ${res.headers['content-type']}`);
      try {
        body = JSON.parse(res.text);
      } catch (e) {
        check(false, `${where}\n    the body is not JSON: ${e.message}`);
      }
      if (body !== undefined) {
        const v = validatorOf(media.schema);
        check(v(body), `${where}\n    ${op.key} ${res.status}: the body does not match ${JSON.stringify(media.schema)}`, errorsText(v));
        samples.set(`${op.key} ${res.status}`, body);
      }
    }
  }
  if (reqBody !== undefined && typeof reqBody === 'object') {
    const schema = requestSchemaOf(op);
    if (check(schema, `${where}\n    ${op.key} documents no request body`)) {
      const v = validatorOf(schema);
      const ok = v(reqBody);
      if (res.status >= 200 && res.status < 300)
        check(ok, `${where}\n    the server accepted a body the request schema refuses: ${JSON.stringify(reqBody)}`, errorsText(v));
      if (schemaInvalid)
        check(!ok, `${where}\n    the request schema accepts a body meant to break it: ${JSON.stringify(reqBody)}`);
    }
  }
  return body;
}

async function call(node, label, method, path, opts = {}) {
  const res = await send(node, method, path, opts);
  return { res, body: verify(label, method, path, res, opts) };
}

// ---- the run -------------------------------------------------------------------------------------

const A_CLIENTS = {
  agent: 'read = ["notes", "drafts"]\nwrite = ["notes", "drafts"]\nreview = true\nerase = true\n',
  reader: 'read = ["notes"]\n',
  nogrants: '',
  dashboard: 'read = ["*"]\n',
};

let exitCode = 0;
try {
  const keysDir = join(root, 'keys');
  for (const k of ['self', 'peer']) {
    const r = spawnSync(binary, ['keygen', '--out', join(keysDir, k)], { encoding: 'utf8', timeout: 20000 });
    if (r.status !== 0) throw new Error(`vasana keygen failed: ${r.stderr}`);
  }
  const peerKey = /public = "([^"]+)"/.exec(readFileSync(join(keysDir, 'peer', 'node.public'), 'utf8'))[1];
  const closedPort = await new Promise((r) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => r(p));
    });
  });

  // A: "lives_in" holds one object per subject, and two such facts contradict; realm "drafts"
  // stores a memory that repeats a corrected phrase as proposed, flagged by the correction.
  const a = await startNode('a', 'max_body_bytes = 65536\nauth_failure_limit = 1000000\n', A_CLIENTS,
    '\n[write]\nfunctional_predicates = ["lives_in"]\non_conflict = "contradict"\n\n[realm."drafts"]\ncorrections = "propose"\n');
  // B: writes wait for one peer that never comes (202), 2 failed logins a minute (429), two
  // connections an address (503), 1 s for a request head (408).
  const b = await startNode(
    'b',
    'auth_failure_limit = 2\nauth_failure_window_s = 60\nmax_connections_per_address = 2\nheader_timeout_ms = 1000\n',
    { agent: A_CLIENTS.agent, dashboard: A_CLIENTS.dashboard },
    `\n[sync]\ncluster = "openapi-test"\nsecret_key_file = "${join(keysDir, 'self', 'node.secret')}"\n` +
      `ack = "replicated:1"\nack_timeout_ms = 200\n` +
      `peers = [ { address = "tcp://127.0.0.1:${closedPort}", public_key = "${peerKey}" } ]\n`,
  );
  console.log(`ok: nodes started (a at ${a.url}, b at ${b.url})`);

  const T = TOKENS;
  const A = { token: T.agent };
  const R = { token: T.reader };
  const N = { token: T.nogrants };
  const D = { token: T.dashboard };
  const UNKNOWN = '0000000000000001-99';
  const post = (label, path, who, body, expect, extra = {}) =>
    call(a, label, 'POST', path, { ...who, body, reqBody: typeof body === 'object' ? body : undefined, expect, ...extra });
  const get = (label, path, who, expect) => call(a, label, 'GET', path, { ...who, expect });
  const del = (label, path, who, expect) => call(a, label, 'DELETE', path, { ...who, expect });

  // Node and realms.
  await get('health', '/healthz', A, 200);
  await get('health of a client without grants', '/healthz', N, 200);
  await get('realms before any memory', '/v1/realms', A, 200);

  // remember
  const first = {
    realm: 'notes', text: 'the staging database runs on port 5433', tags: ['db'], ref: 'staging-db-port',
    kind: 'operational', valid_from: '2026-01-01', session: 's-1', epistemic: 'tool_derived', confidence: 0.9,
    facts: [{ subject: 'staging-db', predicate: 'port', object: '5433', valid_from: 1767225600000 }],
  };
  const ID = (await post('remember', '/v1/remember', A, first, 200)).body.id;
  await post('remember the same ref and content again', '/v1/remember', A, first, 200);
  await post('remember a ref held with other content', '/v1/remember', A, { realm: 'notes', text: 'staging db port is 6000', ref: 'staging-db-port' }, 409);
  const similar = await post('remember a near repeat', '/v1/remember', A, { realm: 'notes', text: 'the staging database runs on port 5433 today' }, 200);
  check(similar.body && similar.body.candidates.length > 0, 'a near repeat gets conflict candidates', similar.body);
  const OTHER = (await post('remember another', '/v1/remember', A, { realm: 'notes', text: 'prod database runs on port 5432 in us-east-1', candidates: false, valid_to: '2030-01-01T00:00:00Z', pinned: true, vector: [] }, 200)).body.id;
  const PROPOSED = (await post('remember proposed', '/v1/remember', A, { realm: 'notes', text: 'deploys freeze on fridays', status: 'proposed' }, 200)).body.id;
  const PROPOSED2 = (await post('remember proposed 2', '/v1/remember', A, { realm: 'notes', text: 'release notes go out on mondays', status: 'proposed' }, 200)).body.id;
  const SECRET = (await post('remember a secret', '/v1/remember', A, { realm: 'notes', text: 'the guest wifi password is hunter2' }, 200)).body.id;
  await post('remember a misspelt field', '/v1/remember', A, { realm: 'notes', txt: 'typo' }, 400, { schemaInvalid: true });
  await post('remember blank text', '/v1/remember', A, { realm: 'notes', text: ' \t ' }, 400, { schemaInvalid: true });
  await post('remember confidence 2', '/v1/remember', A, { realm: 'notes', text: 'x', confidence: 2 }, 400, { schemaInvalid: true });
  await post('remember an unknown kind', '/v1/remember', A, { realm: 'notes', text: 'x', kind: 'rumour' }, 400, { schemaInvalid: true });
  await post('remember a time past year 9999', '/v1/remember', A, { realm: 'notes', text: 'x', valid_to: 9223372036854775807 }, 400, { schemaInvalid: true });
  await post('remember a body that is not JSON', '/v1/remember', A, '{"realm":', 400);
  await post('remember in a realm outside the grants', '/v1/remember', A, { realm: 'ops', text: 'outside' }, 403);
  await post('remember by a client without grants', '/v1/remember', N, { realm: 'notes', text: 'nope' }, 403);
  await post('remember superseding an unknown memory', '/v1/remember', A, { realm: 'notes', text: 'x y', supersedes: UNKNOWN }, 404);

  // recall
  const recalled = await post('recall', '/v1/recall', A, { query: 'staging database port', realms: ['notes'], limit: 5, explain: true, tags: ['db'] }, 200);
  check(recalled.body && recalled.body.hits.length > 0 && recalled.body.hits[0].explain, 'recall with explain answers explained hits', recalled.body);
  await post('recall with times and lanes', '/v1/recall', A, { query: 'database', realms: ['notes'], as_of: '2026-06-01', known_at: Date.now(), since: 0, until: '9999-12-31T23:59:59.999Z', lanes: ['keyword'], staged: true }, 200);
  await post('recall without realms', '/v1/recall', A, { query: 'x' }, 400, { schemaInvalid: true });
  await post('recall limit 0', '/v1/recall', A, { query: 'x', realms: ['notes'], limit: 0 }, 400, { schemaInvalid: true });
  await post('recall an unknown field', '/v1/recall', A, { query: 'x', realms: ['notes'], top: 3 }, 400, { schemaInvalid: true });
  await post('recall explain not a boolean', '/v1/recall', A, { query: 'x', realms: ['notes'], explain: 'yes' }, 400, { schemaInvalid: true });
  await post('recall a realm outside the grants', '/v1/recall', A, { query: 'x', realms: ['ops'] }, 403);
  await post('recall by a client without grants', '/v1/recall', N, { query: 'x', realms: ['notes'] }, 403);

  // update, status, pin, history
  await post('update', `/v1/memories/${ID}/update`, A, { text: 'the staging database runs on port 5434', tags: ['db', 'staging'], facts: [{ subject: 'staging-db', predicate: 'port', object: '5434' }] }, 200);
  await post('update valid time', `/v1/memories/${ID}/update`, A, { valid_from: 1767225600000, valid_to: '2031-01-01' }, 200);
  await post('update that changes nothing', `/v1/memories/${ID}/update`, A, { tags: ['db', 'staging'] }, 400);
  await post('update facts without text', `/v1/memories/${ID}/update`, A, { tags: ['x'], facts: [{ subject: 'a', predicate: 'b', object: 'c' }] }, 400, { schemaInvalid: true });
  await post('update with nothing', `/v1/memories/${ID}/update`, A, {}, 400, { schemaInvalid: true });
  await post('update a malformed id', '/v1/memories/not-an-id/update', A, { text: 'x' }, 400);
  await post('update by a reader', `/v1/memories/${ID}/update`, R, { text: 'reader writes' }, 403);
  await post('update an unknown memory', `/v1/memories/${UNKNOWN}/update`, A, { text: 'x' }, 404);
  await post('status', `/v1/memories/${ID}/status`, A, { status: 'verified', reason: 'checked the config' }, 200);
  await post('status superseded by another', `/v1/memories/${SECRET}/status`, A, { status: 'superseded', replaced_by: OTHER }, 200);
  await post('status active for an unreviewed proposed memory', `/v1/memories/${PROPOSED2}/status`, A, { status: 'active' }, 409);
  await post('status bogus', `/v1/memories/${ID}/status`, A, { status: 'bogus' }, 400, { schemaInvalid: true });
  await post('status archived replaced by another', `/v1/memories/${ID}/status`, A, { status: 'archived', replaced_by: OTHER }, 400, { schemaInvalid: true });
  await post('status by a reader', `/v1/memories/${ID}/status`, R, { status: 'archived' }, 403);
  await post('status of an unknown memory', `/v1/memories/${UNKNOWN}/status`, A, { status: 'archived' }, 404);
  await post('status replaced by an unknown memory', `/v1/memories/${OTHER}/status`, A, { status: 'superseded', replaced_by: UNKNOWN }, 404);
  await post('pin', `/v1/memories/${ID}/pin`, A, { pinned: true }, 200);
  await call(a, 'pin with an empty body', 'POST', `/v1/memories/${OTHER}/pin`, { ...A, expect: 200 });
  await post('pin not a boolean', `/v1/memories/${ID}/pin`, A, { pinned: 'yes' }, 400, { schemaInvalid: true });
  await post('pin by a reader', `/v1/memories/${ID}/pin`, R, { pinned: false }, 403);
  await post('pin an unknown memory', `/v1/memories/${UNKNOWN}/pin`, A, {}, 404);

  // review
  await post('review approve', `/v1/memories/${PROPOSED}/review`, A, { decision: 'approve', note: 'confirmed with the release team' }, 200);
  await post('review approve again', `/v1/memories/${PROPOSED}/review`, A, { decision: 'approve' }, 409);
  await post('review reopen', `/v1/memories/${PROPOSED}/review`, A, { decision: 'reopen', reviewer: 'lead' }, 200);
  await post('review reopen of an undecided memory', `/v1/memories/${PROPOSED}/review`, A, { decision: 'reopen' }, 409);
  await post('review reject', `/v1/memories/${PROPOSED}/review`, A, { decision: 'reject' }, 200);
  await post('review an unknown decision', `/v1/memories/${PROPOSED}/review`, A, { decision: 'maybe' }, 400, { schemaInvalid: true });
  await post('review without the grant', `/v1/memories/${PROPOSED2}/review`, N, { decision: 'approve' }, 403);
  await post('review an unknown memory', `/v1/memories/${UNKNOWN}/review`, A, { decision: 'approve' }, 404);

  // facts, analogy
  const FACT = (await post('fact', '/v1/facts', A, { realm: 'notes', subject: 'staging-db', predicate: 'port', object: '5434', source_memory: ID }, 200)).body.id;
  const F1 = (await post('fact runs_in 1', '/v1/facts', A, { realm: 'notes', subject: 'staging-db', predicate: 'runs_in', object: 'eu-west-1', valid_from: '2026-01-01T00:00:00Z' }, 200)).body.id;
  await post('fact runs_in 2', '/v1/facts', A, { realm: 'notes', subject: 'prod-db', predicate: 'runs_in', object: 'us-east-1' }, 200);
  await post('fact without object', '/v1/facts', A, { realm: 'notes', subject: 'a', predicate: 'b' }, 400, { schemaInvalid: true });
  await post('fact by a client without grants', '/v1/facts', N, { realm: 'notes', subject: 'a', predicate: 'b', object: 'c' }, 403);
  await post('fact from an unknown memory', '/v1/facts', A, { realm: 'notes', subject: 'a', predicate: 'b', object: 'c', source_memory: UNKNOWN }, 404);
  const analogy = await post('analogy', '/v1/analogy', A, { a: 'staging-db', b: 'eu-west-1', c: 'prod-db', realms: ['notes'] }, 200);
  check(analogy.body && analogy.body.abstained === false && analogy.body.candidates.length > 0 && analogy.body.candidates[0].support.length > 0,
    'the analogy finds a supported candidate', analogy.body);
  const abstained = await post('analogy that abstains', '/v1/analogy', A, { a: 'x', b: 'y', c: 'z', realms: ['notes'], as_of: '2026-06-01' }, 200);
  check(abstained.body && abstained.body.abstained === true && abstained.body.reason !== '', 'an analogy with nothing to go on abstains with a reason', abstained.body);
  await post('analogy without realms', '/v1/analogy', A, { a: 'x', b: 'y', c: 'z' }, 400, { schemaInvalid: true });
  await post('analogy by a client without grants', '/v1/analogy', N, { a: 'x', b: 'y', c: 'z', realms: ['notes'] }, 403);
  const facts = await get('list facts', '/v1/facts?realm=notes', A, 200);
  check(facts.body && facts.body.facts.some((f) => f.id === FACT && f.type === 'fact' && f.source_memory === ID) &&
    facts.body.facts.some((f) => f.id === F1 && f.source_memory === ''), 'the realm lists its triplets with their sources', facts.body);
  const onePage = await get('list facts a page of one', '/v1/facts?realm=notes&limit=1', A, 200);
  check(onePage.body && onePage.body.facts.length === 1 && onePage.body.next === onePage.body.facts[0].id, 'a full page of one names the next page', onePage.body);
  const rest = await get('list facts after', `/v1/facts?realm=notes&after=${onePage.body.next}`, A, 200);
  check(rest.body && !rest.body.facts.some((f) => f.id === onePage.body.next), 'the next page starts after it', rest.body);
  const drafts = await get('list facts of a realm without any', '/v1/facts?realm=drafts', A, 200);
  check(drafts.body && drafts.body.facts.length === 0 && drafts.body.next === '', 'a realm without facts lists none', drafts.body);
  await get('list facts of a realm the reader may not read', '/v1/facts?realm=drafts', R, 403);
  await get('list facts without a realm', '/v1/facts', A, 400);
  await get('list facts limit 0', '/v1/facts?realm=notes&limit=0', A, 400);
  await get('list facts by a client without grants', '/v1/facts?realm=notes', N, 403);
  await del('retract', `/v1/facts/${FACT}`, A, 200);
  const after = await get('list facts after a retraction', '/v1/facts?realm=notes', A, 200);
  check(after.body && !after.body.facts.some((f) => f.id === FACT), 'a retracted triplet is no longer listed', after.body);
  await del('retract again', `/v1/facts/${FACT}`, A, 404);
  await del('retract a malformed id', '/v1/facts/xyz', A, 400);
  await del('retract by a reader', `/v1/facts/${F1}`, R, 403);

  // corrections
  await post('correction', '/v1/corrections', A, { realm: 'notes', wrong: 'port 5432', right: 'port 5434', note: 'moved in November' }, 200);
  await post('correction of a source memory', '/v1/corrections', A, { realm: 'notes', wrong: 'runs on port 5434', right: 'runs on port 5435', source_memory: ID }, 200);
  await post('correction whose source lacks the phrase', '/v1/corrections', A, { realm: 'notes', wrong: 'purple elephants', right: 'grey elephants', source_memory: ID }, 400);
  await post('correction without right', '/v1/corrections', A, { realm: 'notes', wrong: 'a' }, 400, { schemaInvalid: true });
  await post('correction by a client without grants', '/v1/corrections', N, { realm: 'notes', wrong: 'a b', right: 'c d' }, 403);
  await post('correction of an unknown memory', '/v1/corrections', A, { realm: 'notes', wrong: 'a b', right: 'c d', source_memory: UNKNOWN }, 404);
  await post('update repeating a corrected phrase', `/v1/memories/${OTHER}/update`, A, { text: 'prod database moved to port 5432 again' }, 409);
  await post('remember repeating a corrected phrase', '/v1/remember', A, { realm: 'notes', text: 'the cache listens on port 5432' }, 409);
  await post('correction in drafts', '/v1/corrections', A, { realm: 'drafts', wrong: 'port 5432', right: 'port 5434' }, 200);
  const flagged = await post('remember repeating a corrected phrase in drafts', '/v1/remember', A, { realm: 'drafts', text: 'the cache listens on port 5432' }, 200);
  check(flagged.body && flagged.body.flagged_by !== '' && flagged.body.status === 'proposed', 'a repeat of a corrected phrase in drafts is stored proposed and flagged', flagged.body);
  const corrected = await post('recall shows corrections', '/v1/recall', A, { query: 'which port 5432', realms: ['notes'] }, 200);
  check(corrected.body && corrected.body.corrections.length > 0, 'a recall of a corrected phrase shows the correction', corrected.body);

  // listings
  const listed = await get('list', '/v1/memories?realm=notes&tag=db&limit=50', A, 200);
  check(listed.body && listed.body.memories.length > 0, 'the list holds the tagged memory', listed.body);
  const page = await get('list a page of one', '/v1/memories?realm=notes&limit=1', A, 200);
  check(page.body && page.body.next !== '', 'a page of one names the next', page.body);
  await get('list with every filter', `/v1/memories?realm=notes&kind=insight,operational&kind=episode&status=active&status=verified,proposed&deleted=true&unreviewed=0&after=${page.body.next}&limit=10000`, A, 200);
  await get('list the review queue', '/v1/memories?realm=notes&unreviewed=true', A, 200);
  await get('list limit 0', '/v1/memories?realm=notes&limit=0', A, 400);
  await get('list without a realm', '/v1/memories', A, 400);
  await get('list an unknown parameter', '/v1/memories?realm=notes&sort=asc', A, 400);
  await get('list an unknown kind', '/v1/memories?realm=notes&kind=rumour', A, 400);
  await get('list by a client without grants', '/v1/memories?realm=notes', N, 403);
  await get('get', `/v1/memories/${ID}`, A, 200);
  await get('get an unknown memory', `/v1/memories/${UNKNOWN}`, A, 404);
  await get('get a memory outside the grants', `/v1/memories/${ID}`, N, 404);
  await get('get a malformed id', '/v1/memories/0000000000000001-0', A, 400);
  await get('history', `/v1/memories/${ID}/history`, A, 200);
  await get('history of an unknown memory', `/v1/memories/${UNKNOWN}/history`, A, 404);
  await get('history of a malformed id', '/v1/memories/ABCDEF0123456789-1/history', A, 400);
  await get('realms', '/v1/realms', A, 200);
  await get('realms of a client without grants', '/v1/realms', N, 200);
  await get('realms with a parameter', '/v1/realms?realm=notes', A, 400);
  const M1 = (await post('remember a claim', '/v1/remember', A, { realm: 'notes', text: 'alice lives in paris', facts: [{ subject: 'alice', predicate: 'lives_in', object: 'paris' }] }, 200)).body.id;
  await post('fact contradicting it', '/v1/facts', A, { realm: 'notes', subject: 'alice', predicate: 'lives_in', object: 'berlin' }, 200);
  const contradictions = await get('contradictions', '/v1/contradictions?realm=notes', A, 200);
  check(contradictions.body && contradictions.body.contradictions.length === 1 && contradictions.body.contradictions[0].claims.length === 2,
    'two objects of a functional predicate are one open contradiction of two claims', contradictions.body);
  check(contradictions.body && contradictions.body.contradictions[0].claims.some((c) => c.source_memory === M1), 'a claim names its source memory', contradictions.body);
  await get('contradictions without a realm', '/v1/contradictions', A, 400);
  await get('contradictions with an unknown parameter', '/v1/contradictions?realm=notes&x=1', A, 400);
  await get('contradictions by a client without grants', '/v1/contradictions?realm=notes', N, 403);
  await get('conflicts', '/v1/conflicts?realm=notes', A, 200);
  await get('conflicts without a realm', '/v1/conflicts', A, 400);
  await get('conflicts of a realm outside the grants', '/v1/conflicts?realm=notes,ops', A, 403);
  await get('conflicts by a client without grants', '/v1/conflicts?realm=notes', N, 403);
  await get('status', '/v1/status', D, 200);
  await get('status of a client that may not read every realm', '/v1/status', A, 403);
  await get('status of a client without grants', '/v1/status', N, 403);

  // forget, erase
  await del('forget', `/v1/memories/${ID}?reason=obsolete`, A, 200);
  await del('forget again', `/v1/memories/${ID}`, A, 404);
  await del('forget with an unknown parameter', `/v1/memories/${OTHER}?why=x`, A, 400);
  await del('forget by a reader', `/v1/memories/${OTHER}`, R, 403);
  await get('get a forgotten memory', `/v1/memories/${ID}`, A, 200);
  await post('update a forgotten memory', `/v1/memories/${ID}/update`, A, { text: 'again' }, 404);
  await call(a, 'erase', 'POST', `/v1/memories/${SECRET}/erase?reason=a%20password`, { ...A, expect: 200 });
  await call(a, 'erase again', 'POST', `/v1/memories/${SECRET}/erase`, { ...A, expect: 409 });
  await call(a, 'erase by a reader', 'POST', `/v1/memories/${OTHER}/erase`, { ...R, expect: 403 });
  await call(a, 'erase an unknown memory', 'POST', `/v1/memories/${UNKNOWN}/erase`, { ...A, expect: 404 });
  await call(a, 'erase with an unknown parameter', 'POST', `/v1/memories/${OTHER}/erase?because=x`, { ...A, expect: 400 });
  const erased = await get('get an erased memory', `/v1/memories/${SECRET}`, A, 200);
  check(erased.body && erased.body.status === 'erased' && erased.body.text === '' && erased.body.erased_by === 'agent', 'an erased memory keeps nothing but who erased it', erased.body);

  // GET /v1/openapi.json: this document as JSON.
  const served = await send(a, 'GET', '/v1/openapi.json', A);
  const body = verify('openapi document', 'GET', '/v1/openapi.json', served, { expect: 200 });
  check(isDeepStrictEqual(body, JSON.parse(JSON.stringify(doc))), 'GET /v1/openapi.json answers docs/openapi.yaml as JSON');
  await get('openapi document with a parameter', '/v1/openapi.json?format=yaml', A, 400);

  // 401 for every documented operation (and an unknown or wrong token); 405 for every other method.
  const concrete = (path) => path.replace('{id}', OTHER);
  for (const o of ops) {
    const body = o.method === 'POST' ? {} : undefined;
    const res = await send(a, o.method, concrete(o.path), { body });
    verify(`${o.key} without a token`, o.method, concrete(o.path), res, { expect: 401 });
  }
  verify('a wrong token', 'GET', '/healthz', await send(a, 'GET', '/healthz', { token: 'not-the-token-0123456789abcdefghijkl' }), { expect: 401 });
  verify('another scheme', 'GET', '/healthz', await send(a, 'GET', '/healthz', { headers: { Authorization: `Basic ${T.agent}` } }), { expect: 401 });
  const PROBES = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  for (const [path, item] of Object.entries(doc.paths)) {
    const documented = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());
    for (const m of PROBES) {
      if (documented.includes(m)) continue;
      const res = await send(a, m, concrete(path), A);
      ++requests;
      const where = `${m} ${concrete(path)} (undocumented method) -> ${res.status} ${res.text}`;
      if (!check(res.status === 405, `${where}\n    expected 405`)) continue;
      const response = doc.components.responses.MethodNotAllowed;
      const v = validatorOf(response.content['application/json'].schema);
      check(v(JSON.parse(res.text)), `${where}\n    the body does not match the documented 405`, errorsText(v));
      const allow = String(res.headers.allow || '').split(',').map((s) => s.trim()).sort();
      check(isDeepStrictEqual(allow, [...documented].sort()), `${where}\n    Allow names ${res.headers.allow}, the document ${documented.join(', ')}`);
    }
    if (documented.includes('GET')) {
      const g = await send(a, 'GET', concrete(path), A);
      const h = await send(a, 'HEAD', concrete(path), A);
      verify(`HEAD ${path}`, 'HEAD', concrete(path), h, { expect: g.status });
    }
  }
  {
    const res = await send(a, 'GET', '/v1/no-such-route', A);
    ++requests;
    const v = validatorOf(doc.components.responses.NoRoute.content['application/json'].schema);
    check(res.status === 404 && v(JSON.parse(res.text)), `GET /v1/no-such-route -> ${res.status} ${res.text}: not the documented 404 no_route`, errorsText(v));
    const post404 = await send(a, 'POST', `/v1/memories/${OTHER}/nothing`, { ...A, body: {} });
    check(post404.status === 404 && JSON.parse(post404.text).error === 'no_route', `POST /v1/memories/ID/nothing -> ${post404.status}: not 404 no_route`);
  }

  // The refusals of HTTP itself, before a route (raw requests on node a).
  const auth = `Authorization: Bearer ${T.agent}\r\n`;
  const rawCheck = async (label, method, path, bytes, expect, node = a, opts = {}) =>
    verify(label, method, path, await raw(node, bytes, opts), { expect });
  await rawCheck('a declared body over max_body_bytes', 'POST', '/v1/remember',
    `POST /v1/remember HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n`, 413);
  await rawCheck('a request line over 16 KiB', 'GET', '/healthz', `GET /healthz?${'a'.repeat(17000)} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`, 414);
  await rawCheck('a head over 16 KiB', 'GET', '/healthz', `GET /healthz HTTP/1.1\r\nHost: x\r\n${auth}X-Big: ${'b'.repeat(17000)}\r\n\r\n`, 431);
  await rawCheck('an expectation other than 100-continue', 'POST', '/v1/remember',
    `POST /v1/remember HTTP/1.1\r\nHost: x\r\n${auth}Expect: the-unexpected\r\nContent-Length: 2\r\n\r\n{}`, 417);
  await rawCheck('a transfer coding other than chunked', 'POST', '/v1/remember',
    `POST /v1/remember HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: gzip\r\n\r\n`, 501);
  await rawCheck('HTTP/1.2', 'GET', '/healthz', `GET /healthz HTTP/1.2\r\nHost: x\r\n${auth}\r\n`, 505);
  await rawCheck('a control byte in a header', 'GET', '/healthz', `GET /healthz HTTP/1.1\r\nHost: x\r\n${auth}X-Bad: a\x01b\r\n\r\n`, 400);
  await rawCheck('two framings of one body', 'POST', '/v1/remember',
    `POST /v1/remember HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n`, 400);
  const chunked = '{"realm":"notes","text":"sent in chunks"}';
  await rawCheck('a chunked body', 'POST', '/v1/remember',
    `POST /v1/remember HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunked.length.toString(16)}\r\n${chunked}\r\n0\r\n\r\n`, 200);

  // Node b: 202 for every write, 408, 503 too_many_connections, 429.
  const bpost = (label, path, body, extra = {}) =>
    call(b, label, 'POST', path, { ...A, body, reqBody: typeof body === 'object' ? body : undefined, expect: 202, ...extra });
  const nr = (r) => r.body && r.body.id;
  const B1 = nr(await bpost('remember not replicated', '/v1/remember', { realm: 'notes', text: 'only on one machine for now' }));
  const B2 = nr(await bpost('remember proposed not replicated', '/v1/remember', { realm: 'notes', text: 'a proposal on one machine', status: 'proposed' }));
  await bpost('update not replicated', `/v1/memories/${B1}/update`, { text: 'only here, updated' });
  await bpost('status not replicated', `/v1/memories/${B1}/status`, { status: 'verified' });
  await bpost('pin not replicated', `/v1/memories/${B1}/pin`, { pinned: true });
  await bpost('review not replicated', `/v1/memories/${B2}/review`, { decision: 'approve' });
  const BF = nr(await bpost('fact not replicated', '/v1/facts', { realm: 'notes', subject: 'edge', predicate: 'is', object: 'alone' }));
  await call(b, 'retract not replicated', 'DELETE', `/v1/facts/${BF}`, { ...A, expect: 202 });
  await bpost('correction not replicated', '/v1/corrections', { realm: 'notes', wrong: 'one machine', right: 'two machines' });
  await call(b, 'forget not replicated', 'DELETE', `/v1/memories/${B2}`, { ...A, expect: 202 });
  await call(b, 'erase not replicated', 'POST', `/v1/memories/${B1}/erase`, { ...A, expect: 202 });
  await call(b, 'health of b', 'GET', '/healthz', { ...A, expect: 200 });
  const bStatus = await call(b, 'status of b', 'GET', '/v1/status', { ...D, expect: 200 });
  check(bStatus.body && bStatus.body.peers.length === 1 && bStatus.body.peers[0].up === false, 'b names its one peer, down', bStatus.body && bStatus.body.peers);

  // Two connections from 127.0.0.4 that send half a head hold b's per-address limit: a third is
  // answered 503 at once; the two are answered 408 after header_timeout_ms.
  const half = `GET /healthz HTTP/1.1\r\nHost: x\r\n${auth}`;
  const held = [raw(b, half, { localAddress: '127.0.0.4' }), raw(b, half, { localAddress: '127.0.0.4' })];
  await new Promise((r) => setTimeout(r, 300));
  const over = await raw(b, `GET /healthz HTTP/1.1\r\nHost: x\r\n${auth}\r\n`, { localAddress: '127.0.0.4' });
  verify('a connection over max_connections_per_address', 'GET', '/healthz', over, { expect: 503 });
  check(over.text.includes('too_many_connections') && over.headers['retry-after'] === '1', 'too_many_connections comes with Retry-After: 1', over);
  for (const r of await Promise.all(held)) verify('half a head past header_timeout_ms', 'GET', '/healthz', r, { expect: 408 });

  // From 127.0.0.2: two failed logins reach b's auth_failure_limit; then even the right token
  // is answered 429 with Retry-After.
  for (let i = 0; i < 2; ++i)
    verify('a failed login', 'GET', '/healthz', await send(b, 'GET', '/healthz', { token: 'wrong-token-0123456789abcdefghijklmn', localAddress: '127.0.0.2' }), { expect: 401 });
  verify('throttled', 'POST', '/v1/remember', await send(b, 'POST', '/v1/remember', { ...A, body: { realm: 'notes', text: 'x' }, localAddress: '127.0.0.2' }), { expect: 429 });
  verify('throttled health', 'GET', '/healthz', await send(b, 'GET', '/healthz', { ...A, localAddress: '127.0.0.2' }), { expect: 429 });
  // Other addresses are still served.
  await call(b, 'health of b from another address', 'GET', '/healthz', { ...A, expect: 200 });

  // Negative controls of the answer validator: real answers, broken, must be refused.
  const memory = samples.get('GET /v1/memories/{id} 200');
  const memorySchema = responseOf(opFor('GET', `/v1/memories/${OTHER}`), 200).content['application/json'].schema;
  const vMemory = validatorOf(memorySchema);
  check(memory && vMemory(memory), 'positive control: a real memory answer matches its schema');
  const withoutRealm = { ...memory };
  delete withoutRealm.realm;
  check(!vMemory(withoutRealm), 'negative control: the validator accepts a memory answer without its required realm');
  check(!vMemory({ ...memory, colour: 'blue' }), 'negative control: the validator accepts a memory answer with an unknown field');
  check(!vMemory({ ...memory, status: 'pending' }), 'negative control: the validator accepts a memory status outside the enum');
  const written = samples.get('POST /v1/memories/{id}/pin 200');
  const rememberSchema = responseOf(opFor('POST', '/v1/remember'), 200).content['application/json'].schema;
  check(written && !validatorOf(rememberSchema)(written), 'negative control: a pin answer passes as a remember answer');
  const unauthorized = samples.get('GET /healthz 401');
  const forbiddenSchema = responseOf(opFor('GET', '/v1/status'), 403).content['application/json'].schema;
  check(unauthorized && !validatorOf(forbiddenSchema)(unauthorized), 'negative control: a 401 body passes as a 403 body');

  // Both ways: every documented operation answered with success at least once.
  for (const o of ops) {
    const statuses = seen.get(o.key);
    check(statuses && [...statuses.keys()].some((s) => s >= 200 && s < 300), `${o.key} was never answered with success`);
  }
  console.log('operation                                  statuses seen (count)');
  for (const o of ops) {
    const statuses = seen.get(o.key) || new Map();
    const text = [...statuses.entries()].sort((x, y) => x[0] - y[0]).map(([s, n]) => `${s}(${n})`).join(' ');
    console.log(`  ${o.key.padEnd(40)} ${text || '-'}`);
  }
  const all = new Set();
  for (const m of seen.values()) for (const s of m.keys()) all.add(s);
  console.log(`statuses exercised: ${[...all].sort((x, y) => x - y).join(', ')}, plus 404 no_route and 405 probes`);
  console.log('not exercised (documented from the code): 500 internal/io_failure/protocol_mismatch, 503 unavailable (a read-only node or one that does not answer in 30 s)');
} catch (e) {
  check(false, `the run stopped: ${e && e.stack ? e.stack : e}`);
} finally {
  for (const n of nodes) {
    await stopNode(n);
    check(n.child.exitCode === 0 || n.child.signalCode === 'SIGTERM', `node ${n.name} stopped cleanly (exit ${n.child.exitCode}, signal ${n.child.signalCode})`, n.stderr().slice(-2000));
  }
  rmSync(root, { recursive: true, force: true });
  clearTimeout(watchdog);
}

console.log(`${requests} answers checked in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
if (failures.length) exitCode = 1;
console.log(`openapi: ${passed} passed, ${failures.length} failed`);
process.exit(exitCode);

// End-to-end test of `vasana mcp` with the official MCP TypeScript SDK: Client +
// StdioClientTransport launch `vasana mcp --data DIR` against a real `vasana serve`.
//   node mcp_e2e.mjs VASANA_BINARY
// Exits 0 when every check holds, 1 on the first that does not (it says which).
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { startNode } from './node_fixture.mjs';

const binary = process.argv[2] || process.env.VASANA_BINARY;
if (!binary) {
  console.error('usage: node mcp_e2e.mjs VASANA_BINARY');
  process.exit(2);
}
const watchdog = setTimeout(() => {
  console.error('FAIL: the test did not finish within 90 s');
  process.exit(1);
}, 90000);

let checks = 0;
function check(cond, what, detail) {
  if (!cond) throw new Error(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
  ++checks;
}

async function connect(data, extra = []) {
  const transport = new StdioClientTransport({ command: binary, args: ['mcp', '--data', data, ...extra], stderr: 'pipe' });
  const client = new Client({ name: 'vasana-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const call = (client, name, args) => client.callTool({ name, arguments: args });

// Raw JSON-RPC lines through `vasana mcp`: the answers, one per request line.
function rawSession(data, lines) {
  return new Promise((resolve, reject) => {
    const p = spawn(binary, ['mcp', '--data', data], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('error', reject);
    p.on('exit', () => resolve(out.split('\n').filter((l) => l).map((l) => JSON.parse(l))));
    p.stdin.end(lines.join('\n') + '\n');
  });
}

const config = `
[clients."reader"]
read = ["team"]

[clients."writer"]
read = ["team"]
write = ["team"]
`;

const node = await startNode(binary, { config });
try {
  // --- the protocol, raw ---
  const raw = await rawSession(node.data, [
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    '{ this is not json',
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no/such/method' }),
    JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }),
    JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  ]);
  check(raw.length === 5, 'raw session: one answer per request, none for the notification', raw);
  check(raw[0].id === 1 && raw[0].result.protocolVersion === LATEST_PROTOCOL_VERSION,
    `initialize agrees on the SDK's latest revision ${LATEST_PROTOCOL_VERSION}`, raw[0]);
  check(raw[0].result.capabilities.tools !== undefined, 'initialize offers tools', raw[0]);
  check(raw[1].id === null && raw[1].error.code === -32700, 'bad JSON gets -32700', raw[1]);
  check(raw[2].id === 2 && raw[2].error.code === -32601, 'an unknown method gets -32601', raw[2]);
  check(raw[3].id === 3 && JSON.stringify(raw[3].result) === '{}', 'ping answers {}', raw[3]);
  check(raw[4].result.protocolVersion === LATEST_PROTOCOL_VERSION, 'an unknown revision is answered with the latest', raw[4]);

  // --- the SDK client, as the owner ---
  const owner = await connect(node.data);
  check(owner.getServerVersion().name === 'vasana', 'server name', owner.getServerVersion());
  const { tools } = await owner.listTools();
  const names = tools.map((t) => t.name).sort();
  const expected = ['add_fact', 'archive', 'conflicts', 'contradictions', 'correct', 'erase', 'forget', 'get', 'history',
    'list_memories', 'list_realms', 'pin', 'recall', 'recall_analogy', 'remember', 'retract_fact', 'review', 'supersede',
    'update'];
  check(JSON.stringify(names) === JSON.stringify(expected), 'tools/list names every tool', names);
  for (const t of tools) check(t.inputSchema && t.inputSchema.type === 'object', `tool ${t.name} has an object input schema`);

  const text = 'the staging database password rotates every ninety days';
  const rem = await call(owner, 'remember', {
    realm: 'team', text, tags: ['ops'],
    facts: [{ subject: 'paris', predicate: 'capital_of', object: 'france' },
            { subject: 'madrid', predicate: 'capital_of', object: 'spain' }],
  });
  check(!rem.isError, 'remember succeeds', rem);
  const id = rem.structuredContent.id;
  check(/^[0-9a-f]{16}-\d+$/.test(id) && rem.structuredContent.status === 'active', 'remember returns an id, active', rem.structuredContent);
  check(JSON.parse(rem.content[0].text).id === id, 'the text block holds the same JSON');

  const rec = await call(owner, 'recall', { query: 'staging database password', realms: ['team'], explain: true });
  check(!rec.isError && rec.structuredContent.hits.length >= 1 && rec.structuredContent.hits[0].id === id,
    'recall finds the memory first', rec.structuredContent);
  check(rec.structuredContent.verdict === 'KNOWN', 'recall says KNOWN', rec.structuredContent.verdict);
  const lanes = rec.structuredContent.hits[0].explain.lanes;
  check(lanes.length >= 1 && lanes.every((l) => l.lane && l.rank >= 1), 'explain shows each lane and rank', lanes);

  // A new text retires the old text's facts; the update gives the new text's (one of the two).
  const upd = await call(owner, 'update', {
    id, text: 'the staging database password rotates every thirty days',
    facts: [{ subject: 'paris', predicate: 'capital_of', object: 'france' }],
  });
  check(!upd.isError && upd.structuredContent.id === id && upd.structuredContent.op !== id,
    'update succeeds and names the memory as id, its op as op', upd);
  const gone = await call(owner, 'recall_analogy', { a: 'paris', b: 'france', c: 'madrid', realms: ['team'] });
  check(!gone.isError && gone.structuredContent.abstained, 'a fact of the old text no longer answers an analogy', gone.structuredContent);
  const readd = await call(owner, 'add_fact', { realm: 'team', subject: 'madrid', predicate: 'capital_of', object: 'spain', source: id });
  check(!readd.isError, 'add_fact with the memory as source', readd);
  const got = await call(owner, 'get', { id });
  check(!got.isError && got.structuredContent.text.includes('thirty days'), 'get shows the updated text', got.structuredContent);

  const hist = await call(owner, 'history', { id });
  check(!hist.isError && hist.structuredContent.ops.length >= 2 && hist.structuredContent.ops.every((o) => o.chain_verified),
    'history lists the put and the update, chain verified', hist.structuredContent);
  check(hist.structuredContent.ops.every((o) => o.lost_to === undefined), 'a sequential update lost nothing', hist.structuredContent);
  const conf = await call(owner, 'conflicts', { realms: ['team'] });
  check(!conf.isError && Array.isArray(conf.structuredContent.conflicts) && conf.structuredContent.conflicts.length === 0,
    'conflicts lists none for a realm updated by one writer', conf.structuredContent);
  const confBad = await call(owner, 'conflicts', {});
  check(confBad.isError, 'conflicts without realms is refused', confBad);

  const ana = await call(owner, 'recall_analogy', { a: 'paris', b: 'france', c: 'madrid', realms: ['team'] });
  check(!ana.isError && !ana.structuredContent.abstained && ana.structuredContent.candidates[0].d === 'spain',
    'recall_analogy: paris : france :: madrid : spain', ana.structuredContent);
  const abst = await call(owner, 'recall_analogy', { a: 'paris', b: 'spain', c: 'madrid', realms: ['team'] });
  check(!abst.isError && abst.structuredContent.abstained && abst.structuredContent.reason.length > 0,
    'recall_analogy abstains with a reason when no relation links a to b', abst.structuredContent);

  const cor = await call(owner, 'correct', { realm: 'team', wrong: 'rotates yearly', right: 'rotates every thirty days' });
  check(!cor.isError && /-\d+$/.test(cor.structuredContent.id), 'correct stores a correction', cor);

  const staged = await call(owner, 'remember', { realm: 'team', text: 'the on-call rota changes on mondays', staged: true });
  check(!staged.isError && staged.structuredContent.status === 'proposed', 'a staged memory is proposed', staged.structuredContent);
  const queue = await call(owner, 'review', { action: 'list', realm: 'team' });
  check(!queue.isError && queue.structuredContent.memories.some((m) => m.id === staged.structuredContent.id),
    'review list shows the proposed memory', queue.structuredContent);
  const appr = await call(owner, 'review', { action: 'approve', id: staged.structuredContent.id, reviewer: 'e2e' });
  check(!appr.isError && appr.structuredContent.id === staged.structuredContent.id, 'review approve succeeds and names the memory', appr);
  const again = await call(owner, 'review', { action: 'reject', id: staged.structuredContent.id, reviewer: 'e2e' });
  check(again.isError && JSON.stringify(again.content).includes('already approved'), 'a second decision is refused', again);
  const queue2 = await call(owner, 'review', { action: 'list', realm: 'team' });
  check(!queue2.structuredContent.memories.some((m) => m.id === staged.structuredContent.id), 'the approved memory leaves the queue');

  // --- curation: supersede, archive, pin, list, facts and contradictions ---
  const older = (await call(owner, 'remember', { realm: 'plans', text: 'the deploy window is tuesday afternoon' })).structuredContent.id;
  const newer = (await call(owner, 'remember', { realm: 'plans', text: 'the deploy window moved to thursday morning' })).structuredContent.id;
  const sup = await call(owner, 'supersede', { id: older, by: newer, reason: 'moved' });
  check(!sup.isError && sup.structuredContent.id === older, 'supersede succeeds and names the memory', sup);
  const gotOlder = await call(owner, 'get', { id: older });
  check(gotOlder.structuredContent.status === 'superseded' && gotOlder.structuredContent.replaced_by === newer,
    'get shows superseded and what replaced it', gotOlder.structuredContent);
  const self = await call(owner, 'supersede', { id: newer, by: newer });
  check(self.isError && self.structuredContent.error === 'bad_input', 'a memory cannot replace itself', self);
  const pin = await call(owner, 'pin', { id: newer });
  check(!pin.isError && (await call(owner, 'get', { id: newer })).structuredContent.pinned === true, 'pin pins', pin);
  const arch = await call(owner, 'archive', { id: newer });
  check(!arch.isError, 'archive succeeds', arch);
  const listed = await call(owner, 'list_memories', { realm: 'plans', statuses: ['archived'] });
  check(!listed.isError && listed.structuredContent.memories.length === 1 && listed.structuredContent.memories[0].id === newer,
    'list_memories filters by status', listed.structuredContent);
  await call(owner, 'archive', { id: newer, restore: true });
  const claimA = await call(owner, 'add_fact', { realm: 'plans', subject: 'deploy window', predicate: 'day', object: 'tuesday', source: older });
  const claimB = await call(owner, 'add_fact', { realm: 'plans', subject: 'Deploy Window', predicate: 'Day', object: 'thursday', source: newer });
  check(!claimA.isError && !claimB.isError && claimA.structuredContent.id !== claimB.structuredContent.id, 'add_fact returns triplet ids', claimB);
  const contra = await call(owner, 'contradictions', { realms: ['plans'] });
  check(!contra.isError && Array.isArray(contra.structuredContent.contradictions), 'contradictions answers a list', contra.structuredContent);
  const retr = await call(owner, 'retract_fact', { id: claimA.structuredContent.id });
  check(!retr.isError && retr.structuredContent.id === claimA.structuredContent.id, 'retract_fact names the triplet', retr);
  const retrAgain = await call(owner, 'retract_fact', { id: claimA.structuredContent.id });
  check(retrAgain.isError && retrAgain.structuredContent.error === 'not_found', 'a retracted triplet is not found again', retrAgain);

  const realms = await call(owner, 'list_realms', {});
  check(!realms.isError && realms.structuredContent.realms.some((r) => r.realm === 'plans' && r.memories === 2)
    && realms.structuredContent.realms.some((r) => r.realm === 'team'), 'list_realms names the realms with their counts',
    realms.structuredContent);

  const fgt = await call(owner, 'forget', { id, reason: 'e2e' });
  check(!fgt.isError, 'forget succeeds', fgt);
  const rec2 = await call(owner, 'recall', { query: 'staging database password', realms: ['team'] });
  check(!rec2.isError && !rec2.structuredContent.hits.some((h) => h.id === id), 'recall no longer finds the forgotten memory', rec2.structuredContent);
  const ers = await call(owner, 'erase', { id, reason: 'e2e: stored by mistake' });
  check(!ers.isError && ers.structuredContent.id === id, 'erase names the erased memory', ers);
  const erasedGet = await call(owner, 'get', { id });
  check(!erasedGet.isError && erasedGet.structuredContent.status === 'erased' && !JSON.stringify(erasedGet.structuredContent).includes('ninety days'),
    'an erased memory answers status erased without its text', erasedGet.structuredContent);
  const ersAgain = await call(owner, 'erase', { id });
  check(ersAgain.isError, 'a second erase is refused', ersAgain);

  // --- invalid calls: tool errors that say what was wrong ---
  const noRealm = await call(owner, 'remember', { text: 'no realm' });
  check(noRealm.isError && noRealm.content[0].text.includes("'realm'"), 'a missing field is named', noRealm);
  const badId = await call(owner, 'get', { id: 'not-an-id' });
  check(badId.isError && badId.content[0].text.includes('is not an id'), 'a malformed id is named', badId);
  const unknownId = await call(owner, 'get', { id: '0123456789abcdef-99' });
  check(unknownId.isError && unknownId.structuredContent.error === 'not_found', 'an unknown id is not_found', unknownId);
  const typo = await call(owner, 'recall', { query: 'x', realms: ['team'], limt: 3 });
  check(typo.isError && typo.content[0].text.includes("unknown field 'limt'"), 'a misspelt field is named', typo);
  let unknownTool = null;
  try { await call(owner, 'no_such_tool', {}); } catch (e) { unknownTool = e; }
  check(unknownTool && unknownTool.code === -32602, 'an unknown tool is a -32602 protocol error', unknownTool && unknownTool.message);
  await owner.close();

  // --- --as NAME: the node applies that client's grants ---
  const reader = await connect(node.data, ['--as', 'reader']);
  const seen = await call(reader, 'recall', { query: 'on-call rota', realms: ['team'] });
  check(!seen.isError && seen.structuredContent.hits.length >= 1, 'a read-only client may recall its realm', seen);
  const refused = await call(reader, 'remember', { realm: 'team', text: 'the reader tries to write this' });
  check(refused.isError && refused.structuredContent.error === 'permission_denied' && refused.content[0].text.includes('reader'),
    'a read-only client may not remember: permission_denied naming it', refused);
  const other = await call(reader, 'recall', { query: 'anything', realms: ['elsewhere'] });
  check(other.isError && other.structuredContent.error === 'permission_denied', 'nor recall a realm it has no grant for', other);
  const anaSeen = await call(reader, 'recall_analogy', { a: 'paris', b: 'france', c: 'madrid', realms: ['team'] });
  check(!anaSeen.isError, 'a read-only client may ask an analogy in its realm', anaSeen);
  const anaRefused = await call(reader, 'recall_analogy', { a: 'paris', b: 'france', c: 'madrid', realms: ['elsewhere'] });
  check(anaRefused.isError && anaRefused.structuredContent.error === 'permission_denied',
    'but not in a realm it has no grant for', anaRefused);
  const readerRealms = await call(reader, 'list_realms', {});
  check(!readerRealms.isError && readerRealms.structuredContent.realms.map((r) => r.realm).join() === 'team',
    'list_realms names only the realms the client may read', readerRealms.structuredContent);
  await reader.close();
  const writer = await connect(node.data, ['--as', 'writer']);
  const written = await call(writer, 'remember', { realm: 'team', text: 'the writer may write this' });
  check(!written.isError, 'a client with the write grant may remember', written);
  await writer.close();
  const owner2 = await connect(node.data);
  const after = await call(owner2, 'recall', { query: 'reader tries to write', realms: ['team'] });
  check(!after.structuredContent.hits.some((h) => h.text.includes('reader tries')), 'the refused remember wrote nothing', after.structuredContent);
  const unknownClient = await connect(node.data, ['--as', 'nobody']);
  const nobody = await call(unknownClient, 'recall', { query: 'x', realms: ['team'] });
  check(nobody.isError && nobody.structuredContent.error === 'permission_denied', 'an unknown client name is refused', nobody);
  await unknownClient.close();
  await owner2.close();

  console.log(`PASS: ${checks} checks`);
  await node.stop();
  clearTimeout(watchdog);
} catch (e) {
  console.error(`FAIL: ${e.message}\n--- node stderr ---\n${node.stderr()}`);
  await node.stop();
  process.exit(1);
}

// End-to-end test of `vasana mcp` under LangChain.js: @langchain/mcp-adapters' MultiServerMCPClient
// loads vasana's MCP tools as LangChain tools from the config a Claude Desktop or Cursor user writes,
//   {"mcpServers": {"vasana": {"command": "vasana", "args": ["mcp", "--data", DIR]}}}
// and the test calls remember and recall through the LangChain tool interface against a real
// `vasana serve`.
//   node langchain_e2e.mjs VASANA_BINARY
// Exits 0 when every check holds, 1 on the first that does not (it says which).
import { mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { ToolInputParsingException } from '@langchain/core/tools';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { startNode } from './node_fixture.mjs';

const binary = process.argv[2] || process.env.VASANA_BINARY;
if (!binary) {
  console.error('usage: node langchain_e2e.mjs VASANA_BINARY');
  process.exit(2);
}
// A test does not phone out: no LangSmith tracing, whatever the environment says.
process.env.LANGSMITH_TRACING = 'false';
process.env.LANGCHAIN_TRACING_V2 = 'false';

let node = null;
const watchdog = setTimeout(() => {
  console.error('FAIL: the test did not finish within 90 s');
  if (node && node.child.exitCode === null) node.child.kill('SIGKILL');
  process.exit(1);
}, 90000);

let checks = 0;
function check(cond, what, detail) {
  if (!cond) throw new Error(`${what}${detail === undefined ? '' : `: ${JSON.stringify(detail)}`}`);
  ++checks;
}

// What a tool call threw, or null.
async function thrown(promise) {
  try { await promise; } catch (e) { return e; }
  return null;
}

node = await startNode(binary);
let client = null;
try {
  // The config exactly as a Claude Desktop / Cursor user writes it: the command is `vasana`, found
  // on PATH, which here starts with a directory whose `vasana` is the binary under test.
  const bin = join(node.root, 'bin');
  mkdirSync(bin);
  symlinkSync(resolve(binary), join(bin, 'vasana'));
  process.env.PATH = `${bin}${delimiter}${process.env.PATH || ''}`;
  const config = JSON.parse(`{
    "mcpServers": {
      "vasana": {
        "command": "vasana",
        "args": ["mcp", "--data", ${JSON.stringify(node.data)}]
      }
    }
  }`);
  client = new MultiServerMCPClient(config);

  // --- the tools, loaded as LangChain tools ---
  const tools = await client.getTools();
  const sdk = await client.getClient('vasana');
  check(sdk && sdk.getServerVersion().name === 'vasana', 'the `vasana` on PATH answers as the vasana MCP server',
    sdk && sdk.getServerVersion());
  const { tools: served } = await sdk.listTools();
  const names = tools.map((t) => t.name);
  check(names.length === served.length && names.length === new Set(names).size,
    'getTools() makes one LangChain tool of every tool the server lists', { names, served: served.map((t) => t.name) });
  for (const want of ['remember', 'recall', 'get', 'update', 'forget', 'list_realms', 'list_memories']) {
    check(names.includes(want), `the LangChain tools include ${want}`, names);
  }
  check(!names.includes('no_such_tool'), 'negative control: no tool the server does not have', names);
  check(!names.includes('vasana__remember'), 'tool names are not prefixed with the server name', names);
  for (const t of tools) {
    check(typeof t.invoke === 'function' && t.description.length > 0, `tool ${t.name} is invokable and described`);
  }
  const tool = (name) => tools.find((t) => t.name === name);
  const remember = tool('remember');
  const recall = tool('recall');
  check(JSON.stringify([...remember.schema.required].sort()) === '["realm","text"]',
    "remember's LangChain schema is vasana's input schema: realm and text required", remember.schema.required);

  // --- remember and recall through tool.invoke ---
  const text = 'the staging database password rotates every ninety days';
  const rem = await remember.invoke({ realm: 'team', text, tags: ['ops'] });
  const id = rem.structuredContent && rem.structuredContent.id;
  check(/^[0-9a-f]{16}-\d+$/.test(id) && rem.structuredContent.status === 'active',
    'remember through LangChain returns an id, active', rem);
  check(rem.type === 'text' && JSON.parse(rem.text).id === id, 'its text block holds the same JSON', rem);

  const rec = await recall.invoke({ query: 'staging database password', realms: ['team'] });
  const hits = rec.structuredContent.hits;
  check(hits.length >= 1 && hits[0].id === id && hits[0].text === text, 'recall through LangChain finds the memory first', rec);
  check(rec.text.includes(text), "the remembered text is in the tool's text output", rec.text);

  // As an agent calls it: a tool call in, a ToolMessage out, the structured answer as its artifact.
  const msg = await recall.invoke({ type: 'tool_call', id: 'call-1', name: 'recall',
    args: { query: 'staging database password', realms: ['team'] } });
  check(ToolMessage.isInstance(msg) && msg.tool_call_id === 'call-1' && msg.status === 'success',
    'a tool call gets a successful ToolMessage with its id', msg);
  check(String(msg.content).includes(text), 'the ToolMessage content holds the remembered text', msg.content);
  const art = (msg.artifact || []).find((a) => a.type === 'mcp_structured_content');
  check(art && art.data.hits[0].id === id, "the ToolMessage artifact holds recall's structured answer", msg.artifact);

  // --- another realm: the memory does not leak into it ---
  const other = 'the canteen serves lentil soup on fridays';
  const rem2 = await remember.invoke({ realm: 'elsewhere', text: other });
  check(rem2.structuredContent.status === 'active', 'remember in another realm', rem2);
  const unrelated = await recall.invoke({ query: 'canteen lentil soup', realms: ['elsewhere'] });
  check(unrelated.structuredContent.hits.some((h) => h.text === other), 'recall in the other realm finds its own memory',
    unrelated.structuredContent);
  check(!unrelated.structuredContent.hits.some((h) => h.id === id || h.text === text),
    'an unrelated query in the other realm does not return the remembered text', unrelated.structuredContent);
  const sameQuery = await recall.invoke({ query: 'staging database password', realms: ['elsewhere'] });
  check(!sameQuery.structuredContent.hits.some((h) => h.id === id || h.text === text),
    "nor does the memory's own query in the other realm", sameQuery.structuredContent);

  // --- bad input, the LangChain way ---
  // Refused by LangChain against vasana's input schema, before the call leaves the process.
  const noRealm = await thrown(remember.invoke({ text: 'no realm' }));
  check(noRealm instanceof ToolInputParsingException, 'remember without realm throws ToolInputParsingException',
    noRealm && `${noRealm.name}: ${noRealm.message}`);
  const typo = await thrown(recall.invoke({ query: 'x', realms: ['team'], limt: 3 }));
  check(typo instanceof ToolInputParsingException, 'a misspelt field throws ToolInputParsingException (additionalProperties false)',
    typo && `${typo.name}: ${typo.message}`);
  // Passes the schema, refused by vasana: the tool result's isError becomes a ToolException.
  const badId = await thrown(tool('get').invoke({ id: 'not-an-id' }));
  check(badId && badId.name === 'ToolException' && badId.message.includes('is not an id') && badId.message.includes('bad_input'),
    "get with a malformed id throws ToolException carrying vasana's message", badId && `${badId.name}: ${badId.message}`);
  const unknown = await thrown(tool('get').invoke({ id: '0123456789abcdef-99' }));
  check(unknown && unknown.name === 'ToolException' && unknown.message.includes('not_found'),
    'get with an unknown id throws ToolException: not_found', unknown && `${unknown.name}: ${unknown.message}`);
  // In an agent loop (LangGraph's ToolNode) the refusal is an error ToolMessage the model can read,
  // beside a call of the same turn that succeeds.
  const turn = await new ToolNode(tools).invoke({ messages: [new AIMessage({ content: '', tool_calls: [
    { id: 'call-2', name: 'get', args: { id: 'not-an-id' } },
    { id: 'call-3', name: 'recall', args: { query: 'staging database password', realms: ['team'] } },
  ] })] });
  const [errMsg, okMsg] = turn.messages;
  check(errMsg && errMsg.tool_call_id === 'call-2' && errMsg.status === 'error' && String(errMsg.content).includes('is not an id'),
    'ToolNode turns the refusal into an error ToolMessage', errMsg);
  check(okMsg && okMsg.tool_call_id === 'call-3' && okMsg.status === 'success' && String(okMsg.content).includes(text),
    'and answers the good call of the same turn', okMsg);

  await client.close();
  client = null;
  console.log(`PASS: ${checks} checks`);
  await node.stop();
  clearTimeout(watchdog);
} catch (e) {
  console.error(`FAIL: ${e.message}\n--- node stderr ---\n${node.stderr()}`);
  if (client) await client.close().catch(() => {});
  await node.stop();
  process.exit(1);
}

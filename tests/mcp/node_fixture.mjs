// A `vasana serve` child for the Node.js tests and benchmarks (tests/mcp, tests/openapi, tests/ui):
// a fresh data directory (vasana init), an optional config file, started and waited for until
// `vasana status` answers; stop() ends it. A start that fails leaves no process and no folder.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startNode(binary, { config = '', keep = false } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'vasana-mcp-'));
  const data = join(root, 'data');
  let child = null;
  let stderr = '';
  let configPath = '';
  try {
    const init = spawnSync(binary, ['init', '--data', data], { encoding: 'utf8' });
    if (init.status !== 0) {
      throw new Error(`vasana init failed (exit ${init.status}): ${init.error ? init.error.message : init.stderr}`);
    }
    const args = ['serve', '--data', data];
    if (config) {
      configPath = join(root, 'vasana.toml');
      writeFileSync(configPath, config);
      args.push('--config', configPath);
    }
    child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (d) => { stderr += d; });
    const deadline = Date.now() + 20000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`vasana serve exited ${child.exitCode}: ${stderr}`);
      if (existsSync(join(data, 'client.endpoint'))) {
        const st = spawnSync(binary, ['status', '--data', data], { encoding: 'utf8', timeout: 5000 });
        if (st.status === 0) break;
      }
      if (Date.now() > deadline) throw new Error(`vasana serve not ready within 20 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (e) {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    if (!keep) rmSync(root, { recursive: true, force: true });
    throw e;
  }
  return {
    root, data, configPath, child,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
        await exited;
        clearTimeout(timer);
      }
      if (!keep) rmSync(root, { recursive: true, force: true });
    },
  };
}

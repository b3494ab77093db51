// A `vasana serve` child for the MCP tests and benchmark: a fresh data directory (vasana init), an
// optional config file, started and waited for until `vasana status` answers; stop() ends it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startNode(binary, { config = '', keep = false } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'vasana-mcp-'));
  const data = join(root, 'data');
  const init = spawnSync(binary, ['init', '--data', data], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`vasana init failed: ${init.error ? init.error.message : init.stderr}`);
  const args = ['serve', '--data', data];
  let configPath = '';
  if (config) {
    configPath = join(root, 'vasana.toml');
    writeFileSync(configPath, config);
    args.push('--config', configPath);
  }
  let stderr = '';
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.on('data', (d) => { stderr += d; });
  const deadline = Date.now() + 20000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vasana serve exited ${child.exitCode}: ${stderr}`);
    if (existsSync(join(data, 'client.endpoint'))) {
      const st = spawnSync(binary, ['status', '--data', data], { encoding: 'utf8', timeout: 5000 });
      if (st.status === 0) break;
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`vasana serve not ready within 20 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
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

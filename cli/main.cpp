// vasana: one binary, one subcommand per user-facing operation (DESIGN.md "Command line").
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/commands.hpp"

namespace {

const char* kUsage =
    "usage: vasana <command> [options]\n"
    "\n"
    "commands:\n"
    "  init --data DIR [--config FILE]        create a data directory and its writer identity\n"
    "  serve --data DIR [--config FILE]       run a node in the foreground (SIGINT/SIGTERM stop it)\n"
    "  remember --realm R [--kind K] [--ref ID] [--tag T]... [--valid-from T] [--valid-to T]\n"
    "           [--update] [--supersedes ID] [--fact \"s|p|o\"]... [--origin user|tool|model|synthesis]\n"
    "           [--staged] [--pin] [--confidence X] TEXT\n"
    "                                         store a memory; prints its id once durable\n"
    "  update ID [--text T | --text -] [--fact \"s|p|o\"]... [--tag T]... [--clear-tags] [--valid-from T]\n"
    "           [--valid-to T]                a new version of a memory's text, tags or valid time; a new\n"
    "                                         text retires the old text's facts (--fact: the new text's)\n"
    "  forget ID [--reason R]                 delete a memory (it leaves recall; its history stays)\n"
    "  erase ID [--reason R]                  erase a memory for good: its content leaves every node's\n"
    "                                         state, segments and checkpoints (needs the erase grant)\n"
    "  archive ID / restore ID [--reason R]   take a memory out of recall / make it active again\n"
    "  supersede ID --by NEW [--reason R]     mark a memory superseded by a newer one of its realm\n"
    "  pin ID / unpin ID                      set or clear a memory's pin\n"
    "  fact --realm R [--source ID] [--valid-from T] [--valid-to T] \"s|p|o\"\n"
    "                                         store a triplet; prints its id\n"
    "  correct --realm R --wrong W --right X [--note N] [--source ID]\n"
    "                                         store a correction; prints its id\n"
    "  retract TRIPLET_ID                     withdraw a triplet\n"
    "  review approve|reject|reopen ID --reviewer NAME [--note N]\n"
    "                                         decide on a memory held for review (final until reopened)\n"
    "  recall --realm R [--realm R2] [--limit N] [--json] [--explain] [--as-of T] [--known-at T] [--tag T]... [--lanes a,b] [--staged] [--since T] [--until T] QUERY\n"
    "                                         ranked memories and a KNOWN / UNKNOWN verdict\n"
    "  recall --batch FILE.jsonl [--realm R] [--limit N]  one JSON query per line in, one JSON result per line out\n"
    "  import --realm R [--skip-bad] FILE.jsonl  bulk load, idempotent by ref, with progress\n"
    "  export --realm R [--out FILE] [--deleted] [--history] [--no-ids]  every memory as JSON lines that import reads\n"
    "  get ID [--json]                        one memory with every field\n"
    "  list --realm R [--kind K]... [--tag T]... [--status S]... [--deleted] [--unreviewed] [--limit N] [--after ID] [--json]\n"
    "                                         a page of a realm's memories in id order\n"
    "  realms [--json]                        the realms you may read that hold memories, and how many\n"
    "  verify [--deep] --data DIR             offline check of every segment; exit 1 on corruption\n"
    "                                         --deep: also the state checkpoint against a full replay\n"
    "  backup [--data DIR] DEST               a verified copy of a data directory, live or stopped\n"
    "  repair --data DIR [--from DIR]... [--accept-loss]\n"
    "                                         offline: restore the own stream from other nodes' copies\n"
    "  log --data DIR [--writer ID]           every op, one JSON object per line\n"
    "  status [--json]                        replica digest, writers applied, peers up/down and lag\n"
    "  cluster [--json]                       members, how each is reached from here and by its peers, lag, digest\n"
    "  cluster admit KEY ADDRESS [--name N]   admit a node (KEY: Z85 or its node.public file) on every member\n"
    "  cluster remove KEY                     remove a node: every member stops replicating with it\n"
    "  history ID [--json]                    every op that touched a memory, with writer, times and chain check\n"
    "  contradictions --realm R [--json]      open contradictions of functional claims, for review\n"
    "  conflicts --realm R [--json]           updates lost to a concurrent update or forget, for review\n"
    "  analogy A B C --realm R [--realm R2] [--as-of T] [--json]\n"
    "                                         A is to B as C is to what, from triplets only (or why no answer)\n"
    "  mcp [--data DIR | --config FILE] [--as NAME]\n"
    "                                         an MCP server on stdin/stdout (JSON-RPC) for AI agents\n"
    "  keygen --out DIR                       a CurveZMQ key pair for peer links: DIR/node.secret (0600), DIR/node.public\n"
    "  version                                the version and the git commit it was built from (also --version)\n"
    "\n"
    "Client commands find the node with --data DIR (default $VASANA_DATA) or --connect ENDPOINT.\n"
    "Write commands print the id once durable (--json for a JSON object).\n"
    "Exit codes: 0 success, 1 a check failed, refused, not found or the node could not do it,\n"
    "2 bad usage or input.\n";

// The lines of kUsage that describe cmd: those starting "  cmd " or naming "/ cmd " (as
// "archive ID / restore ID"), and the indented lines that continue them. Empty when cmd has none.
std::string usage_of(const std::string& cmd) {
  std::string out;
  bool in = false;
  const std::string text = kUsage;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const bool head = line.size() > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ';
    if (head)
      in = line.compare(2, cmd.size() + 1, cmd + " ") == 0 || line.find("/ " + cmd + " ") != std::string::npos;
    else if (line.empty() || line[0] != ' ') in = false;
    if (in) out += (head ? "usage: vasana" + line.substr(1) : line) + "\n";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? vasana::kExitUsage : vasana::kExitOk;
  }
  std::string cmd = argv[1];
  if (cmd == "--version" || cmd == "version") return vasana::cmd_version(vasana::Words(argv + 2, argv + argc));
  // `vasana CMD --help`: the command's lines of the usage text.
  for (int i = 2; i < argc && std::strcmp(argv[i], "--"); ++i)  // after "--" every word is text
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      const std::string usage = usage_of(cmd);
      if (usage.empty()) break;  // an unknown command: said below
      std::fputs(usage.c_str(), stdout);
      return vasana::kExitOk;
    }
  vasana::Words words(argv + 2, argv + argc);
  if (cmd == "init") return vasana::cmd_init(words);
  if (cmd == "serve") return vasana::cmd_serve(words);
  if (cmd == "remember") return vasana::cmd_remember(words);
  if (cmd == "update") return vasana::cmd_update(words);
  if (cmd == "forget") return vasana::cmd_forget(words);
  if (cmd == "erase") return vasana::cmd_erase(words);
  if (cmd == "archive") return vasana::cmd_archive(words);
  if (cmd == "restore") return vasana::cmd_restore(words);
  if (cmd == "supersede") return vasana::cmd_supersede(words);
  if (cmd == "pin") return vasana::cmd_pin(words);
  if (cmd == "unpin") return vasana::cmd_unpin(words);
  if (cmd == "fact") return vasana::cmd_fact(words);
  if (cmd == "correct") return vasana::cmd_correct(words);
  if (cmd == "retract") return vasana::cmd_retract(words);
  if (cmd == "review") return vasana::cmd_review(words);
  if (cmd == "recall") return vasana::cmd_recall(words);
  if (cmd == "import") return vasana::cmd_import(words);
  if (cmd == "get") return vasana::cmd_get(words);
  if (cmd == "list") return vasana::cmd_list(words);
  if (cmd == "realms") return vasana::cmd_realms(words);
  if (cmd == "export") return vasana::cmd_export(words);
  if (cmd == "verify") return vasana::cmd_verify(words);
  if (cmd == "backup") return vasana::cmd_backup(words);
  if (cmd == "repair") return vasana::cmd_repair(words);
  if (cmd == "log") return vasana::cmd_log(words);
  if (cmd == "keygen") return vasana::cmd_keygen(words);
  if (cmd == "status") return vasana::cmd_status(words);
  if (cmd == "cluster") return vasana::cmd_cluster(words);
  if (cmd == "history") return vasana::cmd_history(words);
  if (cmd == "contradictions") return vasana::cmd_contradictions(words);
  if (cmd == "conflicts") return vasana::cmd_conflicts(words);
  if (cmd == "analogy") return vasana::cmd_analogy(words);
  if (cmd == "mcp") return vasana::cmd_mcp(words);
  std::fprintf(stderr, "vasana: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return vasana::kExitUsage;
}

// The subcommands of `vasana`. Each takes the words after its name and returns an exit code
// (cli/args.hpp). Messages go to stderr, results to stdout.
#pragma once

#include <string>
#include <vector>

namespace vasana {

using Words = std::vector<std::string>;

int cmd_init(const Words& words);
int cmd_serve(const Words& words);
int cmd_remember(const Words& words);
int cmd_update(const Words& words);   // cmd_update.cpp .. cmd_review.cpp: the write commands
int cmd_forget(const Words& words);
int cmd_erase(const Words& words);
int cmd_archive(const Words& words);
int cmd_restore(const Words& words);
int cmd_supersede(const Words& words);
int cmd_pin(const Words& words);
int cmd_unpin(const Words& words);
int cmd_fact(const Words& words);
int cmd_correct(const Words& words);
int cmd_retract(const Words& words);
int cmd_review(const Words& words);
int cmd_recall(const Words& words);
int cmd_import(const Words& words);
int cmd_get(const Words& words);
int cmd_list(const Words& words);
int cmd_realms(const Words& words);
int cmd_export(const Words& words);
int cmd_verify(const Words& words);
int cmd_backup(const Words& words);
int cmd_repair(const Words& words);
int cmd_log(const Words& words);
int cmd_keygen(const Words& words);
int cmd_status(const Words& words);
int cmd_cluster(const Words& words);
int cmd_history(const Words& words);
int cmd_contradictions(const Words& words);
int cmd_conflicts(const Words& words);
int cmd_analogy(const Words& words);
int cmd_mcp(const Words& words);
int cmd_version(const Words& words);  // also `vasana --version`

// Prints "vasana: <message>" to stderr and returns code.
int fail(int code, const std::string& message);

}  // namespace vasana

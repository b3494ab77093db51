#include "replica/correction_lane.hpp"

#include <algorithm>

#include "replica/correction_check.hpp"
#include "replica/replica_state.hpp"

namespace vasana {

namespace {

bool in_realms(const std::string& realm, const std::vector<std::string>& realms) {
  return std::find(realms.begin(), realms.end(), realm) != realms.end();
}

}  // namespace

std::vector<std::string> phrase_words(std::string_view text) {
  std::vector<std::string> words;
  std::string cur;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_word_byte(c)) {
      cur.push_back(c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : ch);
    } else if (!cur.empty()) {
      words.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  return words;
}

bool wrong_phrase_occurs(std::string_view wrong, std::string_view text) {
  const auto keys = correction_phrase_keys(phrase_words(wrong));
  if (keys.empty()) return false;
  const auto offered = correction_text_keys(phrase_words(text));
  return std::includes(offered.begin(), offered.end(), keys.begin(), keys.end());
}

void CorrectionLane::update(const StateChange& change, const ReplicaState& state) {
  if (!change.corrections) return;
  // StateChange does not name the correction, so look for the ones not indexed yet:
  // O(corrections) per correction op. Corrections are few and never removed.
  state.for_each_correction([&](const CorrectionRecord& c) {
    if (by_id_.count(c.id)) return;
    Entry e;
    e.record = c;
    const auto words = phrase_words(c.wrong);
    const auto keys = correction_phrase_keys(words);
    e.words = words.size();
    e.keys = keys.size();
    const size_t index = entries_.size();
    entries_.push_back(std::move(e));
    by_id_.emplace(c.id, index);
    if (keys.empty()) return;  // a wrong phrase with no words can never match
    auto realm = realms_.find(c.realm);
    if (realm == realms_.end()) realm = realms_.emplace(c.realm, Postings{}).first;
    for (const auto& k : keys) realm->second[k].push_back(index);
  });
}

std::vector<const CorrectionLane::Entry*> CorrectionLane::matches(std::string_view text,
                                                                  const std::vector<std::string>& query_realms) const {
  std::vector<std::string> realms = query_realms;
  std::sort(realms.begin(), realms.end());
  realms.erase(std::unique(realms.begin(), realms.end()), realms.end());  // count each posting once
  const auto keys = correction_text_keys(phrase_words(text));
  // Per candidate correction, how many of its keys the text holds. The text's keys are
  // distinct and so are each correction's, so a count equal to entry.keys means all of them.
  std::vector<size_t> found;
  for (const auto& realm_name : realms) {
    auto realm = realms_.find(realm_name);
    if (realm == realms_.end()) continue;
    for (const auto& k : keys) {
      auto p = realm->second.find(k);
      if (p != realm->second.end()) found.insert(found.end(), p->second.begin(), p->second.end());
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<const Entry*> matched;
  for (size_t i = 0; i < found.size();) {
    size_t j = i;
    while (j < found.size() && found[j] == found[i]) ++j;
    const Entry& e = entries_[found[i]];
    if (j - i == e.keys) matched.push_back(&e);
    i = j;
  }
  // Longest phrase first; ties by id, so every replica ranks alike whatever the arrival order.
  std::sort(matched.begin(), matched.end(), [](const Entry* a, const Entry* b) {
    return a->words != b->words ? a->words > b->words : a->record.id < b->record.id;
  });
  return matched;
}

std::vector<const CorrectionRecord*> CorrectionLane::find_corrections(std::string_view text,
                                                                      const std::vector<std::string>& realms) const {
  std::vector<const CorrectionRecord*> out;
  for (const Entry* e : matches(text, realms)) out.push_back(&e->record);
  return out;
}

std::vector<LaneHit> CorrectionLane::search(const LaneQuery& q, const ReplicaState& state) const {
  std::vector<LaneHit> out;
  for (const Entry* e : matches(q.text, q.scope.realms)) {
    const CorrectionRecord* c = &e->record;
    if (c->source_memory.seqno.value == 0) continue;
    const MemoryRecord* m = state.memory(c->source_memory);
    if (!m || !in_realms(m->realm.str(), q.scope.realms)) continue;  // never lead out of the query's realms
    const double score = double(e->words);
    auto same = std::find_if(out.begin(), out.end(), [&](const LaneHit& h) { return h.id == c->source_memory; });
    if (same != out.end()) continue;  // already there from a longer (or equal) phrase
    out.push_back(LaneHit{c->source_memory, score});
    if (out.size() >= q.pool) break;
  }
  return out;
}

}  // namespace vasana

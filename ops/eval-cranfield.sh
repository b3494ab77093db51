#!/usr/bin/env bash
# Keyword lane quality on Cranfield, side by side with Xapian BM25 in the same run (issue 3,
# "Quality, side by side"). Builds vasana, writes TREC runs for vasana's BM25 index and for
# Xapian (python3-xapian, installed if missing), and scores them all with one scorer
# (tests/eval/cranfield_metrics.py, trec_eval definitions). Target: vasana's nDCG@10 at least
# Xapian BM25's with the same parameters (k1 = 1.2, b = 0.75).
#
# usage: ops/eval-cranfield.sh [CRANFIELD_DIR]   (default ../shared/eval/cranfield)
# Runs are kept in build/eval-cranfield/.
set -euo pipefail
cd "$(dirname "$0")/.."
cran=${1:-../shared/eval/cranfield}
out=build/eval-cranfield
sudo=$([ "$(id -u)" = 0 ] || echo sudo)

# Debian's module lives in the system interpreter, whatever python3 is first on PATH.
if ! /usr/bin/python3 -c 'import xapian' 2>/dev/null; then
  $sudo apt-get install -y python3-xapian || { $sudo apt-get update && $sudo apt-get install -y python3-xapian; }
fi

./ops/build.sh
mkdir -p "$out"
rm -f "$out"/*.run
build/tests/eval/cranfield_eval --cranfield "$cran" --tag vasana-bm25-k1.2-b0.75 "$out/vasana-bm25-k1.2-b0.75.run"
build/tests/eval/cranfield_eval --cranfield "$cran" --k1 1 --b 0.5 --tag vasana-bm25-k1-b0.5 "$out/vasana-bm25-k1-b0.5.run"
build/tests/eval/cranfield_eval --cranfield "$cran" --fused --tag vasana-fused "$out/vasana-fused.run"
/usr/bin/python3 tests/eval/cranfield_xapian.py "$cran" "$out"
echo "Xapian $(/usr/bin/python3 -c 'import xapian; print(xapian.version_string())')"
python3 tests/eval/cranfield_metrics.py "$cran/cranqrel" \
  "$out/vasana-bm25-k1.2-b0.75.run" "$out/xapian-bm25-k1.2-b0.75.run" \
  "$out/vasana-bm25-k1-b0.5.run" "$out/xapian-bm25-default.run" "$out/vasana-fused.run" \
  --ratio vasana-bm25-k1.2-b0.75 xapian-bm25-k1.2-b0.75

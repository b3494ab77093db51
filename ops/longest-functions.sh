#!/usr/bin/env bash
# Prints the ten longest functions of the product (every folder but tests/) with their length in
# lines, from universal-ctags' start and end lines. Exits 1 if any is longer than the limit
# (default 150 lines; `ops/longest-functions.sh 200` sets another).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-150}
command -v ctags >/dev/null || { echo "longest-functions: ctags missing (ops/install-deps.sh installs universal-ctags)"; exit 2; }

# One line per function: LENGTH FILE:LINE NAME. A lambda counts in the function it sits in (ctags
# also lists it on its own, never longer).
table=$(git ls-files '*.cpp' '*.hpp' | grep -v '^tests/' |
  ctags -L - --languages=C++ --kinds-C++=f --fields=+ne -o - 2>/dev/null |
  awk -F'\t' '{
      line = ""; end = ""; scope = ""
      for (i = 4; i <= NF; i++) {
        if ($i ~ /^line:/) line = substr($i, 6)
        else if ($i ~ /^end:/) end = substr($i, 5)
        else if ($i ~ /^(class|struct|namespace):/) { scope = $i; sub(/^[a-z]+:/, "", scope) }
      }
      if (line == "" || end == "") next
      name = (scope == "" ? $1 : scope "::" $1)
      gsub(/__anon[0-9a-f]+::/, "", name); sub(/^vasana::/, "", name)
      print end - line + 1, $2 ":" line, name
    }' | sort -k1,1nr -k2,2)

echo "longest functions (limit $limit lines):"
head -10 <<<"$table" | awk '{ printf "  %5d  %-48s %s\n", $1, $2, $3 }'
over=$(awk -v limit="$limit" '$1 > limit' <<<"$table" | wc -l)
if ((over > 0)); then
  echo "longest-functions: $over function(s) over $limit lines"
  exit 1
fi
echo "longest-functions: none over $limit lines"

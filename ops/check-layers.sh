#!/usr/bin/env bash
# Checks that every #include "FOLDER/..." in the product points down the layers: a folder may
# include only itself and the folders listed before it (CMakeLists.txt says the same):
#   protocol store replica sync embedding status actors config frontends cli bench
# Prints each include that points up or sideways and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
layers=(protocol store replica sync embedding status actors config frontends cli bench)
declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

bad=0
checked=0
while IFS= read -r file; do
  folder=${file%%/*}
  [[ -n "${rank[$folder]+set}" ]] || continue
  while IFS=: read -r line target; do
    to=${target%%/*}
    [[ -n "${rank[$to]+set}" ]] || continue
    checked=$((checked + 1))
    if ((rank[$to] > rank[$folder])); then
      echo "$file:$line includes $target: $folder/ may not include $to/ (a layer above it)"
      bad=1
    fi
  done < <(grep -n '^#include "' "$file" | sed -E 's/^([0-9]+):#include "([^"]+)".*/\1:\2/')
done < <(git ls-files '*.cpp' '*.hpp')

if ((bad)); then
  echo "check-layers: includes that point up a layer (order: ${layers[*]})"
  exit 1
fi
echo "check-layers: $checked includes between folders, all pointing down (order: ${layers[*]})"

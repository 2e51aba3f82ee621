#!/usr/bin/env bash
# Reference solution: one awk pass over the CSV, then sort by revenue.
set -euo pipefail
cd /app
mkdir -p out
{
  echo "region,orders,units,revenue"
  awk -F, 'NR > 1 {
      region = tolower($3); gsub(/^ +| +$/, "", region)
      if ($5 !~ /^[0-9]+$/ || $5 + 0 == 0) next
      if ($6 !~ /^[0-9]+(\.[0-9]+)?$/) next
      orders[region]++; units[region] += $5
      cents[region] += $5 * int($6 * 100 + 0.5)
    }
    END { for (r in orders) printf "%s,%d,%d,%d.%02d\n", r, orders[r], units[r], cents[r] / 100, cents[r] % 100 }' sales.csv \
    | sort -t, -k4,4gr -k1,1
} > out/region_totals.csv
cat out/region_totals.csv

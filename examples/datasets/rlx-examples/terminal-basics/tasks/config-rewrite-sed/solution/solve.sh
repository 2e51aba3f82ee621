#!/usr/bin/env bash
# Reference solution: a section-aware awk program.
set -euo pipefail
cat > /app/rewrite.sh <<'SCRIPT'
#!/usr/bin/env bash
# app.conf -> app.prod.conf: strip comments and blank lines, production values for [server] and [database].
set -euo pipefail
awk '
  /^[[:space:]]*$/ || /^[[:space:]]*[#;]/ { next }
  /^[[:space:]]*\[[^]]+\][[:space:]]*$/ {
      section = $0; gsub(/^[[:space:]]*\[[[:space:]]*|[[:space:]]*\][[:space:]]*$/, "", section)
      print; next
  }
  {
      key = $0; sub(/=.*/, "", key); gsub(/[[:space:]]/, "", key)
      value = $0; sub(/^[^=]*=/, "", value); gsub(/^[[:space:]]+|[[:space:]]+$/, "", value)
      if (index($0, "=") && section == "server" && key == "debug") { print "debug = false"; next }
      if (index($0, "=") && section == "server" && key == "listen_port") { print "listen_port = 80"; next }
      if (index($0, "=") && section == "database" && key == "host" && value == "localhost") { print "host = db.internal"; next }
      print
  }
' app.conf > app.prod.conf
SCRIPT
chmod +x /app/rewrite.sh
cd /app && bash rewrite.sh
cat /app/app.prod.conf

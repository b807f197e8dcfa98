#!/bin/bash
# Inject the analytics snippet into every generated HTML page of the docs.
set -euo pipefail
docs_dir=${1:-target/doc}
script_content='<script async defer src="https://sa.example.com/latest.js"></script>'

process_file() {
    local file=$1 html
    grep -q 'sa.example.com' "$file" && return 0
    html=$(<"$file")
    printf '%s\n' "${html/<\/head>/${script_content}</head>}" > "$file"
}
export -f process_file

find "$docs_dir" -name '*.html' -print0 | xargs -0 -n1 -P 8 bash -c 'process_file "$1"' _

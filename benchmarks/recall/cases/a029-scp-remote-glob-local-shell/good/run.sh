#!/bin/bash
# Fetch the FastQC HTML reports from the workshop instance and list what arrived.
shopt -s nullglob
remote=dcuser@ec2-34-238-162-94.compute-1.amazonaws.com
dest=$HOME/Desktop/fastqc_html
mkdir -p "$dest"
scp -o BatchMode=yes -o ConnectTimeout=10 "$remote":dc_workshop/results/fastqc_untrimmed_reads/\*.html "$dest"
for report in "$dest"/*.html; do
    echo "got ${report##*/}"
done
